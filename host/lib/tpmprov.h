/* SPDX-License-Identifier: MIT */
/*
 * The host's part of a swtpm TPM 2.0 state, done the way a user does it with tpm2-tools: the
 * owner and lockout authorizations (taken once per state) and a file written into an NV index.
 * For this step only, a swtpm runs on the state directory with a unix data socket S and
 * control socket S.ctrl (both ours, listening, passed as fds; --flags not-need-init), and
 * every tool gets the TCTI "swtpm:path=S" (tpm2-tss 3.2's swtpm TCTI opens S.ctrl itself):
 *
 *   tpm2_startup -c
 *   tpm2_getcap properties-variable                          (unless both secrets are kept)
 *   tpm2_changeauth -c o file:OWNER.new, -c l file:LOCKOUT.new    (where no secret is kept)
 *   tpm2_getcap handles-nv-index                             (unless the state is new)
 *   tpm2_nvundefine INDEX -C o -P file:OWNER                 (if INDEX is listed)
 *   tpm2_nvdefine INDEX -C o -P file:OWNER -s SIZE -a "ownerwrite|authread|ownerread|no_da"
 *   tpm2_nvwrite INDEX -C o -P file:OWNER -i FILE
 *   tpm2_shutdown -c                    (TPM2_Shutdown(CLEAR): the next Startup is a clean one)
 *
 * then that swtpm is stopped (SIGTERM). The state is then ready for the swtpm QEMU uses.
 *
 * Why the authorizations: with an empty owner authorization, code before vtboot's launch or
 * root after it could rewrite the policy index (as nonfatal) or delete it (tboot's default
 * policy then), and TPM2_Clear with an empty lockout authorization deletes it too. The guest
 * never sees these secrets: they stay in the state directory (mode 0600), so the policy belongs
 * to whoever holds that directory. vtboot itself needs neither (tpm/tpm2_seal.h).
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

/* The secrets' files in the state directory: 32 hex digits (16 random bytes), the whole file
 * being the password (tpm2-tools: -P file:PATH). A secret is first written to NAME.new and
 * renamed once the TPM has it, so that an interrupted run is finished by the next one. */
#define TPMPROV_OWNER_AUTH "vtboot-owner.auth"
#define TPMPROV_LOCKOUT_AUTH "vtboot-lockout.auth"

/*
 * Takes ownership of the state in statedir unless its secrets are kept already (a state made
 * by an older vtboot-qemu, with empty authorizations, is taken now; one whose authorization
 * someone else set is refused), then writes file (size bytes, 1..TPMPROV_MAX_SIZE; NULL: none)
 * into index. fresh: the state was just made (no index can exist; secrets kept for an earlier
 * state there are removed). workdir: for the sockets and the tools' output (short path, no
 * ','). Returns 0, -1 (error reported, with the failing tool's output) or 128+signal.
 */
int tpmprov_provision(const char *statedir, const char *workdir, uint32_t index,
                      const char *file, size_t size, bool fresh);

/* STATEDIR/TPMPROV_OWNER_AUTH (malloc'd): for tools that need the owner authorization. */
char *tpmprov_owner_auth_path(const char *statedir);

#endif
