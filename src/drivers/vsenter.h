/* SPDX-License-Identifier: MIT */
/* The guest side of the virtual SENTER channel (include/abi/vsenter.h). */
#ifndef DRIVERS_VSENTER_H
#define DRIVERS_VSENTER_H

#include <stddef.h>
#include <stdint.h>

enum vsenter_result {
    VSENTER_ABSENT,                  /* no channel: a platform without (virtual) TXT */
    VSENTER_REFUSED,                 /* the host refused (its reason in reason) */
    VSENTER_NO_ANSWER,               /* no answer to this request before the deadline */
};

/*
 * Asks the host to launch the MLE whose image starts at mle_base, with its MLE header at
 * mle_hdr. A launch continues at the MLE's entry point and never returns here; this returns
 * why the launch did not happen. The caller runs with interrupts off on vtboot's GDT; while
 * it waits, the IDT is empty (the host requires it), and vtboot's IDT is back on return.
 */
enum vsenter_result vsenter_request(uint32_t mle_base, uint32_t mle_hdr, char *reason,
                                    size_t reasonlen);

#endif
