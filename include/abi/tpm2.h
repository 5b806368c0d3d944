/* SPDX-License-Identifier: MIT */
/* TPM 2.0 (TCG TPM Library Part 2/3, rev 1.59): the constants vtboot's command layer uses. All
 * multi-byte fields on the wire are big-endian. */
#ifndef ABI_TPM2_H
#define ABI_TPM2_H

#include "abi/tpm_hash.h"

#define TPM2_HEADER_SIZE 10u             /* tag u16, size u32, code u32 */
#define TPM2_BUFFER_MAX 4096u            /* PC Client TIS: largest command or response */

#define TPM2_ST_NO_SESSIONS 0x8001u
#define TPM2_ST_SESSIONS 0x8002u
#define TPM_ST_RSP_COMMAND 0x00c4u          /* the answer to a command with a bad tag */

#define TPM2_CC_NV_READ 0x0000014eu
#define TPM2_CC_STARTUP 0x00000144u
#define TPM2_CC_SHUTDOWN 0x00000145u
#define TPM2_CC_CREATE 0x00000153u
#define TPM2_CC_LOAD 0x00000157u
#define TPM2_CC_UNSEAL 0x0000015eu
#define TPM2_CC_CREATE_PRIMARY 0x00000131u
#define TPM2_CC_FLUSH_CONTEXT 0x00000165u
#define TPM2_CC_NV_READ_PUBLIC 0x00000169u
#define TPM2_CC_START_AUTH_SESSION 0x00000176u
#define TPM2_CC_GET_CAPABILITY 0x0000017au
#define TPM2_CC_GET_RANDOM 0x0000017bu
#define TPM2_CC_PCR_READ 0x0000017eu
#define TPM2_CC_POLICY_PCR 0x0000017fu
#define TPM2_CC_PCR_EXTEND 0x00000182u
#define TPM2_CC_POLICY_GET_DIGEST 0x00000189u
#define TPM2_CC_CERTIFY_CREATION 0x0000014au
#define TPM2_CC_READ_CLOCK 0x00000181u

#define TPM2_RC_SUCCESS 0x000u
#define TPM2_RC_INITIALIZE 0x100u        /* TPM2_Startup already done (by the firmware) */
#define TPM2_RC_FAILURE 0x101u
#define TPM2_RC_LOCALITY 0x907u
#define TPM2_RC_YIELDED 0x908u
#define TPM2_RC_TESTING 0x90au
#define TPM2_RC_RETRY 0x922u
#define TPM2_RC_NV_LOCKED 0x148u
#define TPM2_RC_POLICY_FAIL 0x99du       /* base; the parameter/session number is in bits 8-11 */
#define TPM2_RC_HANDLE 0x08bu            /* format-1 handle error (| 0x080 | n << 8) */

#define TPM2_SU_CLEAR 0x0000u
#define TPM2_SU_STATE 0x0001u

#define TPM2_RS_PW 0x40000009u           /* password authorisation session */
#define TPM2_RH_OWNER 0x40000001u
#define TPM2_RH_NULL 0x40000007u
#define TPM2_RH_LOCKOUT 0x4000000au
#define TPM2_RH_ENDORSEMENT 0x4000000bu
#define TPM2_RH_PLATFORM 0x4000000cu

#define TPM2_CAP_HANDLES 0x00000001u
#define TPM2_CAP_PCRS 0x00000005u
#define TPM2_TRANSIENT_FIRST 0x80000000u  /* TPM_HT_TRANSIENT << 24: the first object handle */

/* The hash algorithms: TPM_ALG_SHA* in abi/tpm_hash.h */
#define TPM2_ALG_ERROR 0x0000u
#define TPM2_ALG_RSA 0x0001u
#define TPM2_ALG_HMAC 0x0005u
#define TPM2_ALG_AES 0x0006u
#define TPM2_ALG_KEYEDHASH 0x0008u
#define TPM2_ALG_NULL 0x0010u
#define TPM2_ALG_SM3_256 0x0012u
#define TPM2_ALG_ECC 0x0023u
#define TPM2_ALG_CFB 0x0043u

#define TPM2_SE_POLICY 0x01u
#define TPM2_PCR_SELECT_MAX 3u           /* 24 PCRs */
#define TPM2_MAX_DIGEST 64u

/* TPMA_NV bits tboot looks at */
#define TPMA_NV_PPWRITE (1u << 0)
#define TPMA_NV_AUTHREAD (1u << 18)

/* TCG PC Client Platform TPM Profile (PTP) / TIS 1.3: FIFO interface at 0xfed40000 */
#define TIS_BASE 0xfed40000u
#define TIS_LOCALITY_STRIDE 0x1000u
#define TIS_REG_ACCESS 0x00u
#define TIS_REG_INT_ENABLE 0x08u
#define TIS_REG_STS 0x18u
#define TIS_REG_DATA_FIFO 0x24u
#define TIS_REG_INTERFACE_ID 0x30u
#define TIS_REG_DID_VID 0xf00u
#define TIS_REG_RID 0xf04u

#define TIS_ACCESS_ESTABLISHMENT 0x01u
#define TIS_ACCESS_REQUEST_USE 0x02u
#define TIS_ACCESS_PENDING 0x04u
#define TIS_ACCESS_SEIZE 0x08u
#define TIS_ACCESS_SEIZED 0x10u
#define TIS_ACCESS_ACTIVE 0x20u
#define TIS_ACCESS_VALID 0x80u

#define TIS_STS_RESPONSE_RETRY 0x02u
#define TIS_STS_EXPECT 0x08u
#define TIS_STS_DATA_AVAIL 0x10u
#define TIS_STS_GO 0x20u
#define TIS_STS_COMMAND_READY 0x40u
#define TIS_STS_VALID 0x80u
#define TIS_STS_COMMAND_CANCEL (1u << 24)

/* TIS default timeouts (PTP table 17), in milliseconds */
#define TIS_TIMEOUT_A_MS 750u
#define TIS_TIMEOUT_B_MS 2000u
#define TIS_TIMEOUT_C_MS 200u
#define TIS_TIMEOUT_D_MS 30u
#define TPM2_DURATION_LONG_MS 120000u    /* key creation under an emulator on a slow host */

#endif
