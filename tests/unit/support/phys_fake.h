/* SPDX-License-Identifier: MIT */
/*
 * The host's guest-physical memory for pure code: a few windows [base, base + size), each
 * backed by its own heap buffer. phys_map() succeeds only for a range inside one window and,
 * like the pre-kernel's (src/arch/x86/phys.c), never for address 0 or past 4 GiB.
 *
 * In strict mode (the default) every phys_map() returns a fresh heap copy of exactly the
 * bytes asked for, so AddressSanitizer reports any read outside the range the caller
 * asked for, not only outside the window. The copies live until phys_fake_reset(). Pure code
 * only reads through phys_map(); a test that wants writes to reach the window turns strict
 * mode off.
 */
#ifndef TESTS_PHYS_FAKE_H
#define TESTS_PHYS_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PHYS_FAKE_MAX_WINDOWS 8

/* Adds a zero-filled window; returns its buffer (the test's view of guest memory). */
void *phys_fake_add(uint64_t base, size_t size);

/* Adds a window holding a copy of data. */
void *phys_fake_add_copy(uint64_t base, const void *data, size_t size);

/* The test's pointer for guest address addr (which must be inside a window), or NULL. */
void *phys_fake_ptr(uint64_t addr);

/* Drops every window and every strict-mode copy; strict mode back on. */
void phys_fake_reset(void);

void phys_fake_set_strict(bool strict);

/* Number of phys_map() calls since the last reset, and of those that returned NULL. */
unsigned long phys_fake_calls(void);
unsigned long phys_fake_misses(void);

#endif
