/* SPDX-License-Identifier: MIT */
/*
 * The echo test ACM's results (sinit/test/echo.S): the dwords it writes to the buffer whose
 * address the caller of GETSEC[ENTERACCS] or [SENTER] passes in ESI, and the caller's input after them. Shared with the guest that reads them
 * (host/tests/guest/getsec_acmode.c). ECHO_EIP .. ECHO_GDTR_BASE are the state the ACM found
 * at its entry (docs/txt-platform.md "0005"); the selectors are zero-extended.
 */
#ifndef SINIT_TEST_ECHO_H
#define SINIT_TEST_ECHO_H

#define ECHO_MAGIC 0x4f484345            /* "ECHO", written last */

#define ECHO_R_MAGIC 0
#define ECHO_R_EIP 1                     /* the entry point's address */
#define ECHO_R_EAX 2
#define ECHO_R_EBX 3
#define ECHO_R_ECX 4
#define ECHO_R_EDX 5
#define ECHO_R_ESI 6
#define ECHO_R_EDI 7
#define ECHO_R_EBP 8
#define ECHO_R_ESP 9
#define ECHO_R_EFLAGS 10
#define ECHO_R_CR0 11
#define ECHO_R_CR4 12
#define ECHO_R_DR7 13
#define ECHO_R_CS 14
#define ECHO_R_DS 15
#define ECHO_R_ES 16
#define ECHO_R_SS 17
#define ECHO_R_GDTR_LIMIT 18
#define ECHO_R_GDTR_BASE 19
/* read inside AC mode, after the entry state was saved */
#define ECHO_R_PRIV_STS 20               /* TXT private STS, 0xFED20000 */
#define ECHO_R_PUB_STS 21                /* TXT public STS, 0xFED30000 */
#define ECHO_R_TIS_LOC3_ACCESS 22        /* TPM TIS locality 3 ACCESS byte, 0xFED43000 */
#define ECHO_R_IMAGE 23                  /* the module's first dword, read at EBP after the spin */
#define ECHO_R_MISC_ENABLE 24            /* IA32_MISC_ENABLE's low dword, as ENTERACCS left it */
#define ECHO_R_PRIV_STS_CLOSED 25        /* private STS after the ACM's CMD.CLOSE-PRIVATE */
#define ECHO_R_PRIV_STS_REOPENED 26      /* ... and after its CMD.OPEN-PRIVATE */
#define ECHO_NR 27
/*
 * The caller's input, after the results (the ACM only reads it): up to two writes the ACM makes
 * to the TXT private space (offset from 0xFED20000, 32-bit value), in order, after its reads
 * and before it closes the space; an offset of 0 ends the list. They give a guest the private
 * commands that only AC mode reaches (CMD.SECRETS, CMD.RESET, ... ; tests/qemu/test_txt_reset.py).
 */
#define ECHO_IN_WRITE0_OFF 27
#define ECHO_IN_WRITE0_VAL 28
#define ECHO_IN_WRITE1_OFF 29
#define ECHO_IN_WRITE1_VAL 30
#define ECHO_IN_WRITES 2
/*
 * Where the ACM leaves to, when ECHO_IN_EXIT_EIP is not 0: GETSEC[SENTER] passes no return
 * address (EBX is ACBASE) and no GDTR, so its caller gives them here; 0 for ENTERACCS's (EBX,
 * and the GDTR in ECX[31:16] and EDX).
 */
#define ECHO_IN_EXIT_EIP 31
#define ECHO_IN_EXIT_GDTR_LIMIT 32
#define ECHO_IN_EXIT_GDTR_BASE 33
#define ECHO_BUF_NR 34                   /* the buffer: results and input */

#endif
