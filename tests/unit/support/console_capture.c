/* SPDX-License-Identifier: MIT */
#include "console_capture.h"

#include "test_common.h"

#include "log/printk.h"

char console_text[8192];
size_t console_len;

void console_capture(const char *s, size_t len)
{
    assert_true(console_len + len < sizeof(console_text));
    memcpy(console_text + console_len, s, len);
    console_len += len;
    console_text[console_len] = '\0';
}

void console_capture_clear(void)
{
    console_len = 0;
    console_text[0] = '\0';
    printk_set_console(console_capture);
}
