/* SPDX-License-Identifier: MIT */
/*
 * What happens when Linux calls shutdown_entry (arch/x86/kernel/tboot.c: tboot_shutdown):
 * reboot, power off and halt end the launch (PCRs capped) and the machine; S3 goes through
 * s3.c; an offlined CPU parks.
 */
#include <stdbool.h>
#include <stdint.h>

#include "abi/tboot_shared.h"
#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "drivers/acpi_pm.h"
#include "drivers/timer.h"
#include "launch.h"
#include "layout.h"
#include "lib/string.h"
#include "log/printk.h"
#include "main.h"
#include "platform.h"
#include "s3.h"
#include "shutdown.h"
#include "tboot/shared_page.h"

/* The CPU that ends the machine, for shutdown_claim (.bss: unclaimed again at every launch). */
static uint32_t ending_cpu;

void shutdown_handler(uint32_t apic_id) __attribute__((noreturn));

static bool gas_usable(const struct tboot_acpi_gas *g)
{
    if (!g->address)
        return false;
    if (g->bit_width != 8 && g->bit_width != 16 && g->bit_width != 32)
        return false;
    if (g->space_id == ACPI_GAS_IO)
        return g->address <= 0xffff;
    return g->space_id == ACPI_GAS_MEMORY && g->address < 0x100000000ull;
}

static struct acpi_gas to_acpi_gas(const struct tboot_acpi_gas *g)
{
    return (struct acpi_gas){ g->space_id, g->bit_width, g->bit_offset, g->access_width,
                              g->address };
}

void acpi_pm1_sleep_kernel(const struct tboot_acpi_sleep_info *s)
{
    if (!gas_usable(&s->pm1a_cnt_blk)) {
        pr_err("shutdown: the kernel's PM1a_CNT (space %u, width %u, 0x%llx) is unusable\n",
               s->pm1a_cnt_blk.space_id, s->pm1a_cnt_blk.bit_width,
               (unsigned long long)s->pm1a_cnt_blk.address);
        return;
    }
    struct acpi_gas a = to_acpi_gas(&s->pm1a_cnt_blk);
    struct acpi_gas b = { 0 };
    if (gas_usable(&s->pm1b_cnt_blk))
        b = to_acpi_gas(&s->pm1b_cnt_blk);
    acpi_pm1_sleep(&a, &b, s->pm1a_cnt_val, s->pm1b_cnt_val);
    pr_err("shutdown: the platform did not enter the sleep state\n");
}

/* Before the machine ends: nothing sealed to the launch may unseal after it. */
static void end_of_launch(const char *why)
{
    struct tboot_shared *sp = (struct tboot_shared *)_shared_page;
    memzero_explicit(sp->s3_key, sizeof(sp->s3_key));
    launch_cap_pcrs(why);
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
    platform_halt_silently();
}

void shutdown_handler(uint32_t apic_id)
{
    struct tboot_shared *sp = (struct tboot_shared *)_shared_page;

    if (!shared_page_valid(sp)) {
        pr_err("shutdown_entry on CPU %u: the shared page at 0x%08x lost its UUID\n", apic_id,
               sym_addr(sp));
        platform_halt("shared page corrupted");
    }
    uint32_t type = sp->shutdown_type;
    /* A parking CPU never hashes (and never enables SIMD: crypto/cpu.h rule 1); it goes back
     * to Linux only through INIT-SIPI-SIPI, with a fresh state. */
    if (type == TB_SHUTDOWN_WFS)
        park_cpu(sp, apic_id);
    if (!shutdown_claim(&ending_cpu, apic_id)) {
        pr_warn("shutdown_entry: CPU %u read shutdown_type %u (%s) while CPU %u ends the "
                "machine: it parks (an offlined CPU that came late)\n", apic_id, type,
                shutdown_type_name(type), __atomic_load_n(&ending_cpu, __ATOMIC_SEQ_CST) - 1);
        park_cpu(sp, apic_id);
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
        platform_reboot();
    case TB_SHUTDOWN_S5:
    case TB_SHUTDOWN_S4:
        end_of_launch(type == TB_SHUTDOWN_S5 ? "power off" : "S4");
        acpi_pm1_sleep_kernel(&sp->acpi_sinfo);
        pr_err("shutdown: powering off from the FADT instead\n");
        platform_poweroff();
    case TB_SHUTDOWN_HALT:
        end_of_launch("halt");
        pr_info("halted; powering the machine off\n");
        platform_poweroff();
    case TB_SHUTDOWN_S3:
        s3_suspend();
    default:
        pr_err("shutdown_entry: unknown shutdown_type %u\n", type);
        platform_halt("unknown shutdown type");
    }
}
