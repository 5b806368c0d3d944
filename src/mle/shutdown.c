/* SPDX-License-Identifier: MIT */
/*
 * What happens when Linux calls shutdown_entry (arch/x86/kernel/tboot.c: tboot_shutdown):
 * reboot, power off and halt end the launch (PCRs capped) and the machine; S3 goes through
 * s3.c; an offlined CPU parks. Every way out caps first (end_of_launch, halt, s3_suspend).
 */
#include <stdbool.h>
#include <stdint.h>

#include "abi/tboot_shared.h"
#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "common/halt.h"
#include "common/machine.h"
#include "common/pcr_cap.h"
#include "common/simd_state.h"
#include "drivers/apic.h"
#include "drivers/timer.h"
#include "layout.h"
#include "lib/string.h"
#include "log/printk.h"
#include "mle/s3.h"
#include "tboot/shared_page.h"

/* The CPU that ends the machine, for shutdown_claim (.bss: unclaimed again at every launch). */
static uint32_t ending_cpu;

void shutdown_handler(uint32_t apic_id) __attribute__((noreturn));

/* Before the machine ends: nothing sealed to the launch may unseal after it. */
static void end_of_launch(const char *why)
{
    struct tboot_shared *sp = (struct tboot_shared *)_shared_page;
    memzero_explicit(sp->s3_key, sizeof(sp->s3_key));
    pcr_cap(why);
}

/*
 * An offlined CPU stops here, with interrupts off, on its own vtboot stack; the kernel brings
 * it back with INIT-SIPI-SIPI (Linux 6.1 never uses tboot's v6 ap_wake fields), which vtboot
 * does not see. So num_in_wfs counts the CPUs that parked and have not parked since: exact
 * while they are all offline (before S3 and power off), one too many for a CPU the kernel has
 * brought back until it parks again. S3 resets every CPU and the count.
 */
__attribute__((noreturn)) static void park_cpu(struct tboot_shared *sp, uint32_t apic_id)
{
    static uint32_t parked[MAX_CPUS / 32];     /* one bit per APIC ID */
    unsigned cpu = apic_id < MAX_CPUS ? apic_id : MAX_CPUS - 1, count = 0;
    __atomic_or_fetch(&parked[cpu / 32], 1u << (cpu % 32), __ATOMIC_SEQ_CST);
    for (unsigned w = 0; w < MAX_CPUS / 32; w++)
        for (uint32_t v = __atomic_load_n(&parked[w], __ATOMIC_SEQ_CST); v; v &= v - 1)
            count++;
    __atomic_store_n(&sp->num_in_wfs, count, __ATOMIC_SEQ_CST);
    printk_memlog_only(LOG_INFO, "shutdown_entry: CPU %u parks in wait-for-SIPI (%u parked)\n",
                       apic_id, count);
    machine_stop_cpu();
}

void shutdown_handler(uint32_t apic_id)
{
    struct tboot_shared *sp = (struct tboot_shared *)_shared_page;

    if (!shared_page_valid(sp)) {
        pr_err("shutdown_entry on CPU %u: the shared page at 0x%08x lost its UUID\n", apic_id,
               sym_addr(sp));
        halt("shared page corrupted");
    }
    uint32_t type = sp->shutdown_type;
    /* A parking CPU never hashes (and never enables SIMD: crypto/cpu.h rule 1); it goes back
     * to Linux only through INIT-SIPI-SIPI, with a fresh state. */
    switch (shutdown_decide(type, apic_is_boot_cpu(), &ending_cpu, apic_id)) {
    case SHUTDOWN_PARKS:
        park_cpu(sp, apic_id);
    case SHUTDOWN_LATE_BEHIND_OWNER:
        pr_warn("shutdown_entry: CPU %u read shutdown_type %u (%s) while CPU %u ends the "
                "machine: it parks (an offlined CPU that came late)\n", apic_id, type,
                shutdown_type_name(type), __atomic_load_n(&ending_cpu, __ATOMIC_SEQ_CST) - 1);
        park_cpu(sp, apic_id);
    case SHUTDOWN_LATE_S3_ON_AP:
        pr_warn("shutdown_entry: CPU %u read shutdown_type 3 (S3), which the kernel asks for on "
                "its boot CPU only: it parks (an offlined CPU that came late)\n", apic_id);
        park_cpu(sp, apic_id);
    case SHUTDOWN_BOOT_CPU_WFS:
        /* the kernel's request was in the field and is gone: no way to carry it out */
        pr_err("shutdown_entry: the boot CPU (APIC ID %u) read shutdown_type 5 (wait-for-SIPI); "
               "the kernel never parks its boot CPU, so a CPU it took offline wrote that over "
               "the boot CPU's own request\n", apic_id);
        end_of_launch("the kernel's shutdown request was lost");
        halt("the kernel's shutdown request was lost");
    case SHUTDOWN_ENDS:
        break;
    }
    /* This CPU caps (and for S3 MACs and seals): its SIMD state before the first hash. Nothing
     * below returns into the running kernel (rule 3): the machine ends, or sleeps and resumes
     * through a new launch, after Linux saved its FPU state. */
    timer_mark_entry();
    boot_simd_enable();
    pr_info("shutdown_entry: %s (type %u) on CPU %u\n", shutdown_type_name(type), type, apic_id);
    boot_simd_log();
    switch (type) {
    case TB_SHUTDOWN_REBOOT:
        end_of_launch("reboot");
        machine_reset();
    case TB_SHUTDOWN_S5:
    case TB_SHUTDOWN_S4:
        end_of_launch(type == TB_SHUTDOWN_S5 ? "power off" : "S4");
        machine_sleep_as_kernel_asks(&sp->acpi_sinfo);
        pr_err("shutdown: powering off from the FADT instead\n");
        machine_power_off();
    case TB_SHUTDOWN_HALT:
        end_of_launch("halt");
        pr_info("halted; powering the machine off\n");
        machine_power_off();
    case TB_SHUTDOWN_S3:
        s3_suspend();
    default:
        pr_err("shutdown_entry: unknown shutdown_type %u\n", type);
        halt("unknown shutdown type");
    }
}
