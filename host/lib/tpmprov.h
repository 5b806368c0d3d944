/* SPDX-License-Identifier: MIT */
/*
 * Writing a file into an NV index of a swtpm TPM 2.0 state, the way a user does it with
 * tpm2-tools. For this step only, a swtpm runs on the state directory with a unix data socket
 * S and control socket S.ctrl (both ours, listening, passed as fds; --flags not-need-init),
 * and every tool gets the TCTI "swtpm:path=S" (tpm2-tss 3.2's swtpm TCTI opens S.ctrl itself):
 *
 *   tpm2_startup -c
 *   tpm2_getcap handles-nv-index                                  (unless the state is new)
 *   tpm2_nvundefine INDEX -C o                                    (if INDEX is listed)
 *   tpm2_nvdefine INDEX -C o -s SIZE -a "ownerwrite|authread|ownerread|no_da"
 *   tpm2_nvwrite INDEX -C o -i FILE
 *   tpm2_shutdown -c                    (TPM2_Shutdown(CLEAR): the next Startup is a clean one)
 *
 * then that swtpm is stopped (SIGTERM). The state is then ready for the swtpm QEMU uses.
 */
#ifndef HOST_TPMPROV_H
#define HOST_TPMPROV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TPMA_NV (TPM 2.0 Part 2): OWNERWRITE bit 1, OWNERREAD bit 17, AUTHREAD bit 18, NO_DA bit 25;
 * the TPM adds WRITTEN (bit 29) with the first write: 0x22060002. NO_DA: the index's password
 * is not subject to dictionary-attack protection, so a TPM in DA lockout (a few bad passwords
 * anywhere) still lets vtboot read the policy. */
#define TPMPROV_ATTRS "ownerwrite|authread|ownerread|no_da"
#define TPMPROV_MAX_SIZE 2048           /* libtpms' MAX_NV_INDEX_SIZE (TPM2_PT_NV_INDEX_MAX) */

/* file: size bytes (1..TPMPROV_MAX_SIZE). fresh: the state was just made (no index can exist).
 * workdir: for the sockets and the tools' output (short path, no ','). Returns 0, -1 (error
 * reported, with the failing tool's output) or 128+signal. */
int tpmprov_nv_write(const char *statedir, const char *workdir, uint32_t index, const char *file,
                     size_t size, bool fresh);

#endif
