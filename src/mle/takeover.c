/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "drivers/apic.h"
#include "drivers/interrupts.h"
#include "drivers/timer.h"
#include "drivers/warm_reset.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/printk.h"
#include "common/halt.h"
#include "mle/takeover.h"
#include "smp/checkin.h"

/* The MP start-up sequence's waits (INIT, then two SIPIs). */
#define INIT_SETTLE_US 10000u
#define SIPI_GAP_US 200u
/* Measured under TCG on 2 busy host cores: 0.4-6 ms (-kernel, S3, 1 to 4 CPUs), up to 40 ms
 * (GRUB, Xen, 4 CPUs); a CPU that never comes costs this long before the halt. */
#define CHECKIN_TIMEOUT_US 5000000u

extern const char ap_start16[], ap_start16_end[];

struct ap_checkins ap_checkins;     /* .bss: zero at every launch; cleared for S3's park */
uint32_t mle_entry_cpus;

void ap_checkin(uint32_t apic_id)
{
    checkin_record(&ap_checkins, apic_id);
}

void mle_take_over_platform(void)
{
    interrupts_mask_all();
    debug_regs_clear();
    warm_reset_disarm();
}

/*
 * The other CPUs leave wait-for-SIPI (where QEMU still delivers an NMI to the real-mode IVT
 * a loader set) for the MLE's own code, under the MLE's IDT. Linux and Xen later start them
 * with INIT-SIPI-SIPI as usual, which takes them out of the park; tboot, in effect, hands its
 * APs over the same way (parked in its own code until the kernel's INIT-SIPI-SIPI).
 * The wait ends once the count the host gave is in: a CPU beyond it is seen only if it came
 * by then (one that comes later runs the same measured code and parks).
 *
 * Before S3 MACs memory it happens again. Linux counts an offlined CPU dead before it reaches
 * tboot's wait-for-SIPI, and its wait for tboot's num_in_wfs does not help here: vtboot cannot
 * see the INIT-SIPI-SIPI that brings a parked CPU back (tboot, in VMX, can), so its count stays
 * one too high for such a CPU (shutdown.c). A CPU the kernel brought back and offlined again may
 * therefore still run the kernel's last instructions (its stack, the shared page) while S3 MACs
 * memory, and the resume then finds memory changed. INIT stops it wherever it is, and its
 * check-in from the MLE's AP code proves nothing of the kernel's runs there any more.
 */
void mle_park_other_cpus(const char *who)
{
    char line[200];
    uint32_t cpus = mle_entry_cpus, expected = cpus ? cpus - 1 : 0, bsp = cpu_apic_id();

    memset(&ap_checkins, 0, sizeof(ap_checkins));
    memcpy(phys_map(AP_START_BASE, AP_START_SIZE), ap_start16,
           (size_t)(ap_start16_end - ap_start16));
    apic_init_others();
    timer_delay_us(INIT_SETTLE_US);
    uint64_t start = timer_now_us();
    apic_startup_others(AP_START_BASE);
    timer_delay_us(SIPI_GAP_US);
    apic_startup_others(AP_START_BASE);
    while (!checkin_complete(&ap_checkins, expected) &&
           timer_now_us() - start < CHECKIN_TIMEOUT_US)
        cpu_relax();
    uint64_t took = timer_now_us() - start;

    enum checkin_verdict v = checkin_verdict(&ap_checkins, cpus, bsp);
    if (v != CHECKIN_OK) {
        checkin_describe(v, &ap_checkins, cpus, bsp, line, sizeof(line));
        pr_err("%s: %s\n", who, line);
        halt("the other CPUs did not all check in");
    }
    checkin_format_ids(&ap_checkins, line, sizeof(line));
    pr_info("%s: %u other CPUs checked in (APIC IDs %s) and park under the MLE's IDT\n",
            who, expected, line);
    pr_detail("timing: the other CPUs checked in %llu us after the first SIPI\n",
              (unsigned long long)took);
}

