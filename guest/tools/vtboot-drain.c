/* SPDX-License-Identifier: MIT */
/*
 * vtboot-drain: returns once the terminal on standard output has sent everything written to it
 * (tcdrain). The guest's /init calls it before anything that makes the kernel print: the kernel
 * writes its lines to the UART directly, while user space's go out by interrupt from the tty
 * buffer, so a line of ours still buffered would be cut by the kernel's, or lost when the port
 * suspends for S3.
 */
#include <stdio.h>
#include <termios.h>
#include <unistd.h>

int main(void)
{
    if (!isatty(STDOUT_FILENO))
        return 0;                    /* nothing buffered to wait for */
    if (tcdrain(STDOUT_FILENO) != 0) {
        perror("vtboot-drain: tcdrain");
        return 1;
    }
    return 0;
}
