/* SPDX-License-Identifier: MIT */
/*
 * vtboot-keyscan TBOOT_ADDR: looks for tboot's s3_key (read from the shared page at
 * TBOOT_ADDR, a secret the kernel holds) anywhere in vtboot's reserved memory (the region the
 * shared page names, and tboot's memory log with the low page at 0x60000-0x68fff), through
 * /dev/mem, byte for byte and any 16 bytes of it at any alignment. Prints one line per place
 * found ("keyscan-found=0xADDR bytes=N") and "keyscan-count=N". The only place the key may be
 * is the shared page's own s3_key field.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S3_KEY_OFF 0x1f1u
#define S3_KEY_LEN 64u
#define TBOOT_BASE_OFF 0x68u
#define WINDOW 16u
#define LOG_START 0x60000u
#define LOG_END 0x69000u

static int readmem(int fd, uint64_t addr, void *buf, size_t len)
{
    return pread(fd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

/* Counts, in [start, start + len), the places where some 16-byte window of key starts. */
static unsigned scan(int fd, uint64_t start, uint64_t len, const uint8_t *key)
{
    uint8_t *mem = malloc(len);
    unsigned found = 0;

    if (!mem || readmem(fd, start, mem, len)) {
        printf("keyscan-error=cannot read 0x%llx+0x%llx\n", (unsigned long long)start,
               (unsigned long long)len);
        exit(2);
    }
    for (uint64_t i = 0; i + WINDOW <= len; i++) {
        for (unsigned k = 0; k + WINDOW <= S3_KEY_LEN; k++) {
            if (mem[i] != key[k] || memcmp(mem + i, key + k, WINDOW))
                continue;
            unsigned n = WINDOW;
            while (i + n < len && k + n < S3_KEY_LEN && mem[i + n] == key[k + n])
                n++;
            printf("keyscan-found=0x%llx bytes=%u key-offset=%u\n",
                   (unsigned long long)(start + i), n, k);
            found++;
            i += n - 1;
            break;
        }
    }
    free(mem);
    return found;
}

int main(int argc, char **argv)
{
    uint8_t key[S3_KEY_LEN], zero[S3_KEY_LEN] = { 0 };
    uint32_t base_size[2];

    if (argc != 2) {
        fprintf(stderr, "usage: vtboot-keyscan TBOOT_ADDR\n");
        return 2;
    }
    uint64_t page = strtoull(argv[1], NULL, 0);
    int fd = open("/dev/mem", O_RDONLY);
    if (fd < 0 || readmem(fd, page + S3_KEY_OFF, key, sizeof(key)) ||
        readmem(fd, page + TBOOT_BASE_OFF, base_size, sizeof(base_size))) {
        perror("vtboot-keyscan: /dev/mem");
        return 2;
    }
    if (!memcmp(key, zero, sizeof(key))) {
        printf("keyscan-error=the shared page holds no s3_key\n");
        return 2;
    }
    unsigned n = scan(fd, base_size[0], base_size[1], key) +
                 scan(fd, LOG_START, LOG_END - LOG_START, key);
    printf("keyscan-count=%u\n", n);
    return 0;
}
