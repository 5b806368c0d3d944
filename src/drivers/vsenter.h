/* SPDX-License-Identifier: MIT */
/* The guest side of the virtual SENTER channel (include/abi/vsenter.h). */
#ifndef DRIVERS_VSENTER_H
#define DRIVERS_VSENTER_H

#include <stddef.h>
#include <stdint.h>

enum vsenter_result {
    VSENTER_DONE,                    /* the host says it launched; confirm with PCR 17 */
    VSENTER_ABSENT,                  /* no channel: a platform without (virtual) TXT */
    VSENTER_REFUSED,                 /* the host answered with an error */
    VSENTER_NO_ANSWER,               /* timeout or a malformed answer */
};

/* Asks the host to launch the MLE [base, base + size); `reply` gets the host's line. */
enum vsenter_result vsenter_launch(uint32_t mle_base, uint32_t mle_size, char *reply,
                                   size_t replylen);

#endif
