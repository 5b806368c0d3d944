/* SPDX-License-Identifier: MIT */
/*
 * swtpm's control channel protocol ("non-CUSE" commands), as far as we need it.
 * Source: stefanberger/swtpm include/swtpm/tpm_ioctl.h (command numbers, message layouts;
 * "All messages container big-endian data", responses hold only the 'resp' part) and
 * src/swtpm/ctrlchannel.c (how swtpm frames requests: ctrlchannel_recv_cmd), and what QEMU 7.2
 * writes and reads per command: backends/tpm/tpm_emulator.c (tpm_emulator_ctrlcmd(cmd, msg,
 * msg_len_in, msg_len_out) writes the 4-byte command then msg_len_in bytes, reads msg_len_out).
 *
 * A request is a big-endian uint32 command code followed by its body; the answer starts with
 * a big-endian uint32 result (ptm_res, 0 = success) except for CMD_GET_CAPABILITY (a uint64).
 */
#ifndef HOST_TPMCTRL_H
#define HOST_TPMCTRL_H

#include <stddef.h>
#include <stdint.h>

enum {
    CMD_GET_CAPABILITY = 1,
    CMD_INIT,                   /* 2: body ptm_init {u32 init_flags} */
    CMD_SHUTDOWN,               /* 3 */
    CMD_GET_TPMESTABLISHED,     /* 4: answer {u32 res; u8 bit} padded to 8 */
    CMD_SET_LOCALITY,           /* 5: body {u8 loc} (QEMU sends the 4-byte union) */
    CMD_HASH_START,             /* 6: locality-4 _TPM_Hash_Start: PCR 17-22 reset */
    CMD_HASH_DATA,              /* 7: body {u32 length; u8 data[length <= 4096]} */
    CMD_HASH_END,               /* 8: _TPM_Hash_End: PCR 17 extended with H(data), all banks */
    CMD_CANCEL_TPM_CMD,         /* 9 */
    CMD_STORE_VOLATILE,         /* 10 */
    CMD_RESET_TPMESTABLISHED,   /* 11: body {u8 loc} (QEMU: 4 bytes) */
    CMD_GET_STATEBLOB,          /* 12: body {u32 flags, type, offset}; answer 16 bytes + blob */
    CMD_SET_STATEBLOB,          /* 13: body {u32 flags, type, length} + length bytes */
    CMD_STOP,                   /* 14 */
    CMD_GET_CONFIG,             /* 15: answer {u32 res, flags} */
    CMD_SET_DATAFD,             /* 16: no body; the data socket travels as SCM_RIGHTS */
    CMD_SET_BUFFERSIZE,         /* 17: body {u32 size}; answer {u32 res, size, min, max} */
    CMD_GET_INFO,               /* 18: body {u64 flags; u32 offset, pad}; answer 12 + length */
    CMD_LOCK_STORAGE,           /* 19: body {u32 retries} (newer swtpm; 0.7.1 answers BAD_ORDINAL) */
};

/* ptm_hdata.u.req.data[4096]: the most data one CMD_HASH_DATA may carry */
#define TPMCTRL_HASH_CHUNK 4096u

/* result codes (libtpms tpm_error.h, TPM 1.2 numbering used by swtpm for its own errors) */
#define TPMCTRL_SUCCESS 0x00u
#define TPMCTRL_BAD_PARAMETER 0x03u
#define TPMCTRL_FAIL 0x09u
#define TPMCTRL_BAD_ORDINAL 0x0au     /* also: TPM not running (no CMD_INIT yet) */
#define TPMCTRL_IOERROR 0x1fu
#define TPMCTRL_BAD_LOCALITY 0x3du

/*
 * Framing of QEMU's requests: how many bytes the request that starts at buf (have bytes so
 * far) has in all, as QEMU writes it; 0 if more bytes are needed to tell.
 */
size_t tpmctrl_request_len(const uint8_t *buf, size_t have);
/*
 * Framing of swtpm's answers to command cmd, as QEMU reads them: total length given the first
 * `have` bytes; 0 if more bytes are needed to tell.
 */
size_t tpmctrl_response_len(uint32_t cmd, const uint8_t *buf, size_t have);
const char *tpmctrl_cmd_name(uint32_t cmd);

#endif
