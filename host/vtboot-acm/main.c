/* SPDX-License-Identifier: MIT */
/*
 * vtboot-acm: makes, signs, shows and breaks SINIT authenticated code modules in the format
 * tboot 1.10.5 checks (include/abi/txt.h, src/txt/acm.c; docs/txt-platform.md 3.2-3.5).
 * The signature is the emulated CPU's [choice]: RSASSA-PKCS1-v1_5 with SHA-256 over the
 * module without rsa2048_sig and scratch, modulus and signature stored little-endian; the key
 * hash the chipset's PUBLIC.KEY holds is SHA-256 of the modulus as stored.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include "abi/elf.h"
#include "acmkey.h"
#include "txt/acm.h"
#include "util.h"

#define MAX_ACM (4u << 20)           /* larger than any SINIT (256 KiB on hardware) */
/* CPUID.1:EAX of QEMU 7.2's TCG `-cpu max` (query-cpu-model-expansion: family 15, model
 * 107, stepping 1), the model vtboot-qemu --txt pins */
#define ACM_DEFAULT_FMS 0x00060fb1u

static const char usage_text[] =
"NAME\n"
"    vtboot-acm - make, sign, show and break SINIT ACMs for the emulated Intel TXT platform\n"
"\n"
"SYNOPSIS\n"
"    vtboot-acm keygen FILE\n"
"    vtboot-acm make ELF_OR_BIN --key K [--fms X] [--didvid V:D:R] [--date YYYYMMDD] -o FILE\n"
"    vtboot-acm sign FILE --key K\n"
"    vtboot-acm info FILE\n"
"    vtboot-acm key-hash K\n"
"    vtboot-acm break FILE (--flip-byte OFF | --chipset V:D | --fms X | --resign K2)\n"
"                          [--key K] -o OUT\n"
"\n"
"DESCRIPTION\n"
"    An ACM is the 0x4C0-byte header (acm_hdr_t, header version 0: 2048-bit key), the\n"
"    information table at 0x4C0 (ACM_UUID_V3, SINIT, version 5, OsSinitData version 7,\n"
"    capabilities 0x261), the chipset, processor and TPM info lists, a flat GDT and the\n"
"    payload at a 64-byte boundary, zero-padded to a multiple of 64 bytes (include/abi/txt.h,\n"
"    docs/txt-platform.md 3.2). It is signed with RSASSA-PKCS1-v1_5 and SHA-256 over the\n"
"    bytes [0, 0x184) and [0x4C0, size): everything but the signature and the scratch area.\n"
"    Modulus and signature are stored little-endian, the exponent (65537) as a u32.\n"
"\n"
"COMMANDS\n"
"    keygen FILE    Writes a new RSA-2048 key (e = 65537) as PEM, mode 0600. Refuses to\n"
"                   overwrite FILE.\n"
"    make ELF_OR_BIN --key K -o FILE\n"
"                   Lays out an ACM around the payload and signs it with K. An ELF32 file\n"
"                   linked at 0 contributes its loadable segments (memory image, .bss as\n"
"                   zeros) and its entry point; any other file is the payload as is, entered\n"
"                   at its first byte.\n"
"        --fms X          CPUID.1:EAX of the platform's CPU (default 0x00060fb1: QEMU 7.2's\n"
"                         TCG -cpu max, family 15 model 107 stepping 1); the list entry\n"
"                         is X & 0x0FFF3FF0 with that mask (any stepping)\n"
"        --didvid V:D:R   the chipset list's entry, hex (default 8086:b00f:1); D is also the\n"
"                         header's chipset_id\n"
"        --date YYYYMMDD  the header's BCD date (default: SOURCE_DATE_EPOCH's UTC date, else\n"
"                         today's)\n"
"    sign FILE --key K\n"
"                   Stores K's modulus and exponent and the signature in FILE (in place).\n"
"    info FILE      Parses FILE as tboot does and prints every header, information-table and\n"
"                   list field, the launch checks (verify_acmod), and whether the signature\n"
"                   verifies with the module's own key. Exit 1 if tboot would not take it.\n"
"    key-hash K     Prints SHA-256 of K's modulus as an ACM stores it (little-endian, 256\n"
"                   bytes), in hex: the chipset's PUBLIC.KEY (intel-txt.sinit-key-hash).\n"
"    break FILE ... -o OUT\n"
"                   Writes a broken copy of FILE for tests:\n"
"        --flip-byte OFF  inverts the byte at offset OFF (decimal or 0x hex); never re-signs\n"
"        --chipset V:D    the chipset list's first entry names vendor V, device D (hex)\n"
"        --fms X          the processor list's first entry matches CPUID.1:EAX X\n"
"        --resign K2      signed with K2 (modulus and signature of K2)\n"
"                   --chipset and --fms re-sign with --key K if it is given, else the old\n"
"                   signature stays (and no longer verifies).\n"
"\n"
"EXIT STATUS\n"
"    0 success, 1 failure (a message on stderr), 2 usage.\n";

static void usage(FILE *f)
{
    fputs(usage_text, f);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    fputs("vtboot-acm: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void die_ssl(const char *what)
{
    unsigned long e = ERR_get_error();
    die("%s: %s", what, e ? ERR_error_string(e, NULL) : "OpenSSL error");
}

static uint64_t parse_num(const char *s, const char *what, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || v > max || *s == '-')
        die("%s: '%s' is not a number up to 0x%llx", what, s, (unsigned long long)max);
    return v;
}

static unsigned long hex_field(const char **p, const char *what, unsigned long max, char stop)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(*p, &end, 16);
    if (errno || end == *p || v > max || (*end != stop))
        die("%s: malformed", what);
    *p = *end ? end + 1 : end;
    return v;
}

/* ---- keys ---- */

static EVP_PKEY *key_load(const char *path)
{
    char err[512];
    EVP_PKEY *k = acmkey_load(path, err, sizeof(err));
    if (!k)
        die("%s", err);
    return k;
}

/* the modulus as an ACM stores it: 256 bytes, little-endian */
static void key_modulus_le(EVP_PKEY *k, uint8_t out[256])
{
    char err[512];
    if (acmkey_modulus_le(k, out, err, sizeof(err)))
        die("%s", err);
}

static void reverse(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        uint8_t t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

/* the signed bytes, concatenated */
static uint8_t *signed_bytes(const uint8_t *acm, uint32_t size, size_t *len)
{
    struct acm_range r[ACM_NR_SIGNED_RANGES];
    acm_signed_ranges(size, r);
    uint8_t *b = xmalloc(size);
    size_t n = 0;
    for (unsigned i = 0; i < ACM_NR_SIGNED_RANGES; i++) {
        memcpy(b + n, acm + r[i].off, r[i].len);
        n += r[i].len;
    }
    *len = n;
    return b;
}

static void acm_sign(uint8_t *acm, uint32_t size, EVP_PKEY *k)
{
    uint8_t mod[256];
    key_modulus_le(k, mod);
    memcpy(acm + offsetof(struct txt_acm_hdr, rsa2048_pubkey), mod, 256);
    uint32_t e = ACM_PUB_EXP;
    memcpy(acm + offsetof(struct txt_acm_hdr, pub_exp), &e, 4);

    size_t n, siglen = 256;
    uint8_t *msg = signed_bytes(acm, size, &n), sig[256];
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || EVP_DigestSignInit(c, NULL, EVP_sha256(), NULL, k) != 1 ||
        EVP_DigestSign(c, sig, &siglen, msg, n) != 1 || siglen != 256)
        die_ssl("signing");
    EVP_MD_CTX_free(c);
    free(msg);
    reverse(sig, 256);
    memcpy(acm + offsetof(struct txt_acm_hdr, rsa2048_sig), sig, 256);
}

/* 1: the signature verifies with the module's own modulus and exponent */
static int acm_sig_ok(const uint8_t *acm, uint32_t size)
{
    const struct txt_acm_hdr *h = (const void *)acm;
    uint8_t mod[256], sig[256];
    memcpy(mod, h->rsa2048_pubkey, 256);
    memcpy(sig, h->rsa2048_sig, 256);
    reverse(mod, 256);
    reverse(sig, 256);

    OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
    BIGNUM *n = BN_bin2bn(mod, 256, NULL), *e = BN_new();
    BN_set_word(e, h->pub_exp);
    OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_RSA_N, n);
    OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_RSA_E, e);
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(b);
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    EVP_PKEY *k = NULL;
    int ok = 0;
    if (pc && EVP_PKEY_fromdata_init(pc) == 1 &&
        EVP_PKEY_fromdata(pc, &k, EVP_PKEY_PUBLIC_KEY, params) == 1) {
        size_t len;
        uint8_t *msg = signed_bytes(acm, size, &len);
        EVP_MD_CTX *c = EVP_MD_CTX_new();
        ok = EVP_DigestVerifyInit(c, NULL, EVP_sha256(), NULL, k) == 1 &&
             EVP_DigestVerify(c, sig, 256, msg, len) == 1;
        EVP_MD_CTX_free(c);
        free(msg);
    }
    ERR_clear_error();
    EVP_PKEY_free(k);
    EVP_PKEY_CTX_free(pc);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(b);
    BN_free(n);
    BN_free(e);
    return ok;
}

static void print_hex(const uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", d[i]);
}

/* ---- commands ---- */

static int cmd_keygen(const char *path)
{
    EVP_PKEY *k = EVP_RSA_gen(2048);
    if (!k)
        die_ssl("RSA key generation");
    FILE *f = NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || !(f = fdopen(fd, "w")))
        die("%s: %s", path, strerror(errno));
    if (!PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL))
        die_ssl(path);
    if (fclose(f) != 0)
        die("%s: %s", path, strerror(errno));
    EVP_PKEY_free(k);
    return 0;
}

static int cmd_key_hash(const char *path)
{
    char hex[2 * ACMKEY_HASH_LEN + 1], err[512];
    if (acmkey_hash_hex(path, hex, err, sizeof(err)))
        die("%s", err);
    printf("%s\n", hex);
    return 0;
}

static uint8_t *read_acm(const char *path, size_t *len, struct acm_info *a)
{
    char err[200];
    uint8_t *d = file_read_all(path, len, MAX_ACM + ACM_SIZE_MAX_PADDING);
    if (!d)
        die("%s: cannot read (or larger than 0x%x bytes)", path, MAX_ACM + ACM_SIZE_MAX_PADDING);
    if (acm_parse(d, *len, a, err, sizeof(err)) != 0)
        die("%s: %s", path, err);
    return d;
}

static void write_out(const char *path, const uint8_t *d, size_t len)
{
    if (file_write_all(path, d, len) != 0)
        die("%s: cannot write: %s", path, strerror(errno));
}

/* the payload: an ELF32's loadable segments laid out from its lowest address, or the file */
static uint8_t *load_payload(const char *path, uint32_t *len, uint32_t *entry)
{
    size_t n;
    uint8_t *d = file_read_all(path, &n, MAX_ACM);
    if (!d)
        die("%s: cannot read (or larger than 0x%x bytes)", path, MAX_ACM);
    *entry = 0;
    if (n < sizeof(struct elf32_ehdr) || memcmp(d, "\x7f" "ELF", 4) != 0) {
        *len = (uint32_t)n;
        return d;
    }
    struct elf32_ehdr eh;
    memcpy(&eh, d, sizeof(eh));
    if (eh.e_ident[ELF_EI_CLASS] != ELF_CLASS32 || eh.e_ident[ELF_EI_DATA] != ELF_DATA2LSB ||
        eh.e_phentsize != sizeof(struct elf32_phdr) ||
        (uint64_t)eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(struct elf32_phdr) > n)
        die("%s: not a little-endian ELF32 file with program headers", path);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        struct elf32_phdr ph;
        memcpy(&ph, d + eh.e_phoff + i * sizeof(ph), sizeof(ph));
        if (ph.p_type != ELF_PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_filesz > ph.p_memsz || (uint64_t)ph.p_offset + ph.p_filesz > n)
            die("%s: segment %u is outside the file", path, i);
        lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
        hi = (uint64_t)ph.p_vaddr + ph.p_memsz > hi ? (uint64_t)ph.p_vaddr + ph.p_memsz : hi;
    }
    if (lo == UINT64_MAX)
        die("%s: no loadable segment", path);
    if (hi - lo > MAX_ACM)
        die("%s: the image is larger than 0x%x bytes", path, MAX_ACM);
    if (eh.e_entry < lo || eh.e_entry >= hi)
        die("%s: entry point 0x%x is outside the image", path, eh.e_entry);
    uint8_t *img = calloc(1, hi - lo);
    if (!img)
        die("out of memory");
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        struct elf32_phdr ph;
        memcpy(&ph, d + eh.e_phoff + i * sizeof(ph), sizeof(ph));
        if (ph.p_type == ELF_PT_LOAD && ph.p_memsz)
            memcpy(img + (ph.p_vaddr - lo), d + ph.p_offset, ph.p_filesz);
    }
    *len = (uint32_t)(hi - lo);
    *entry = eh.e_entry - (uint32_t)lo;
    free(d);
    return img;
}

static uint32_t default_date(void)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t t = sde ? (time_t)parse_num(sde, "SOURCE_DATE_EPOCH", INT64_MAX) : time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    unsigned y = (unsigned)tm.tm_year + 1900, m = (unsigned)tm.tm_mon + 1, d = (unsigned)tm.tm_mday;
    char s[16];
    snprintf(s, sizeof(s), "%04u%02u%02u", y % 10000, m, d);
    return (uint32_t)strtoul(s, NULL, 16);    /* BCD: the decimal digits read as hex */
}

static uint32_t parse_date(const char *s)
{
    if (strlen(s) != 8 || strspn(s, "0123456789") != 8)
        die("--date: '%s' is not YYYYMMDD", s);
    return (uint32_t)strtoul(s, NULL, 16);
}

struct opts {
    const char *key, *out, *didvid, *chipset, *resign, *date;
    bool has_fms, has_flip;
    uint32_t fms;
    uint64_t flip;
};

static int cmd_make(const char *in, const struct opts *o)
{
    struct acm_values v;
    char err[200];
    if (!o->key || !o->out)
        die("make needs --key and -o");
    EVP_PKEY *k = key_load(o->key);
    acm_values_default(&v, o->has_fms ? o->fms : ACM_DEFAULT_FMS,
                       o->date ? parse_date(o->date) : default_date());
    if (o->didvid) {
        const char *p = o->didvid;
        v.chipsets[0].vendor_id = (uint16_t)hex_field(&p, "--didvid", 0xffff, ':');
        v.chipsets[0].device_id = (uint16_t)hex_field(&p, "--didvid", 0xffff, ':');
        v.chipsets[0].revision_id = (uint16_t)hex_field(&p, "--didvid", 0xffff, 0);
        v.chipset_id = v.chipsets[0].device_id;
    }
    uint32_t plen, entry;
    uint8_t *payload = load_payload(in, &plen, &entry);
    v.entry_point = entry;
    uint8_t *acm = xmalloc(MAX_ACM + 0x10000);
    uint32_t size;
    if (acm_build(&v, payload, plen, acm, MAX_ACM + 0x10000, &size, err, sizeof(err)) != 0)
        die("%s: %s", in, err);
    acm_sign(acm, size, k);
    write_out(o->out, acm, size);
    free(acm);
    free(payload);
    EVP_PKEY_free(k);
    return 0;
}

static int cmd_sign(const char *path, const struct opts *o)
{
    struct acm_info a;
    size_t len;
    if (!o->key)
        die("sign needs --key");
    EVP_PKEY *k = key_load(o->key);
    uint8_t *d = read_acm(path, &len, &a);
    acm_sign(d, a.size, k);
    write_out(path, d, len);
    free(d);
    EVP_PKEY_free(k);
    return 0;
}

static int cmd_info(const char *path)
{
    struct acm_info a;
    size_t len;
    char err[200];
    uint8_t *d = read_acm(path, &len, &a);
    const struct txt_acm_hdr *h = &a.hdr;
    const struct txt_acm_info_table *t = &a.info;

    printf("file: %s (%zu bytes, module 0x%x, padding 0x%x)\n", path, len, a.size, a.padding);
    printf("header:\n");
    printf("  module_type: %u%s\n", h->module_type,
           h->module_type == ACM_TYPE_CHIPSET ? " (chipset)" : "");
    printf("  module_subtype: %u\n", h->module_subtype);
    printf("  header_len: 0x%x dwords\n", h->header_len);
    printf("  header_ver: %u\n", h->header_ver);
    printf("  chipset_id: 0x%04x\n", h->chipset_id);
    printf("  flags: 0x%04x (pre_production %u, debug_signed %u)\n", h->flags,
           !!(h->flags & ACM_FLAG_PRE_PRODUCTION), !!(h->flags & ACM_FLAG_DEBUG_SIGNED));
    printf("  module_vendor: 0x%x\n", h->module_vendor);
    printf("  date: 0x%08x\n", h->date);
    printf("  size: 0x%x dwords (0x%x bytes)\n", h->size, a.size);
    printf("  txt_svn: %u\n  se_svn: %u\n", h->txt_svn, h->se_svn);
    printf("  code_control: 0x%x\n  error_entry_point: 0x%x\n", h->code_control,
           h->error_entry_point);
    printf("  gdt_limit: 0x%x\n  gdt_base: 0x%x\n", h->gdt_limit, h->gdt_base);
    printf("  seg_sel: 0x%x\n  entry_point: 0x%x\n", h->seg_sel, h->entry_point);
    printf("  key_size: %u dwords\n  scratch_size: 0x%x dwords\n", h->key_size, h->scratch_size);
    printf("  pub_exp: %u\n", h->pub_exp);
    uint8_t kh[32];
    SHA256(h->rsa2048_pubkey, 256, kh);
    printf("  key_hash: ");
    print_hex(kh, 32);
    printf("\n");
    printf("info_table (at 0x%x):\n", a.info_off);
    printf("  uuid: ACM_UUID_V3\n");
    printf("  chipset_acm_type: %u (SINIT)\n", t->chipset_acm_type);
    printf("  version: %u\n  length: %u\n", t->version, t->length);
    printf("  chipset_id_list: 0x%x\n", t->chipset_id_list);
    printf("  os_sinit_data_ver: %u\n", t->os_sinit_data_ver);
    printf("  min_mle_hdr_ver: 0x%08x\n", t->min_mle_hdr_ver);
    printf("  capabilities: 0x%08x\n", t->capabilities);
    printf("  acm_ver: %u\n", t->acm_ver);
    printf("  acm_revision: %u.%u.%u\n", t->acm_revision[0], t->acm_revision[1],
           t->acm_revision[2]);
    if (t->version >= 4)
        printf("  processor_id_list: 0x%x\n", t->processor_id_list);
    if (t->version >= 5)
        printf("  tpm_info_list_off: 0x%x\n", t->tpm_info_list_off);
    printf("chipset list: %u\n", a.nr_chipsets);
    for (uint32_t i = 0; i < a.nr_chipsets; i++) {
        struct txt_acm_chipset_id c;
        acm_chipset(d, &a, i, &c);
        printf("  %u: flags 0x%x vendor 0x%04x device 0x%04x revision 0x%x extended 0x%x\n", i,
               c.flags, c.vendor_id, c.device_id, c.revision_id, c.extended_id);
    }
    if (t->version >= 4) {
        printf("processor list: %u\n", a.nr_procs);
        for (uint32_t i = 0; i < a.nr_procs; i++) {
            struct txt_acm_processor_id c;
            acm_processor(d, &a, i, &c);
            printf("  %u: fms 0x%x fms_mask 0x%x platform_id 0x%llx platform_mask 0x%llx\n", i,
                   c.fms, c.fms_mask, (unsigned long long)c.platform_id,
                   (unsigned long long)c.platform_mask);
        }
    }
    if (a.has_tpm_info) {
        printf("tpm info: capabilities 0x%x (ext_policy %u, tpm_family %u, nv_index_set %u)\n",
               a.tpm_caps, a.tpm_caps & ACM_TPM_EXT_POLICY_MASK, ACM_TPM_FAMILY(a.tpm_caps),
               !!(a.tpm_caps & ACM_TPM_NV_INDEX_SET));
        printf("  algorithms: %u:", a.nr_algs);
        for (uint32_t i = 0; i < a.nr_algs; i++)
            printf(" 0x%04x", acm_tpm_alg(d, &a, i));
        printf("\n");
    }
    int rc = 0;
    if (acm_check_launch(&a, 0, err, sizeof(err)) == 0) {
        printf("launch checks: ok\n");
    } else {
        printf("launch checks: %s\n", err);
        rc = 1;
    }
    printf("signature: %s\n", acm_sig_ok(d, a.size) ? "good (the module's own key)" : "BAD");
    free(d);
    return rc;
}

static int cmd_break(const char *path, const struct opts *o)
{
    struct acm_info a;
    size_t len;
    int n = (o->has_flip != 0) + (o->chipset != NULL) + (o->has_fms != 0) + (o->resign != NULL);
    if (n != 1 || !o->out)
        die("break needs exactly one of --flip-byte, --chipset, --fms, --resign, and -o");
    uint8_t *d = read_acm(path, &len, &a);
    if (o->has_flip) {
        if (o->flip >= len)
            die("--flip-byte 0x%llx is outside the %zu-byte file", (unsigned long long)o->flip,
                len);
        d[o->flip] ^= 0xff;
    } else if (o->resign) {
        EVP_PKEY *k = key_load(o->resign);
        acm_sign(d, a.size, k);
        EVP_PKEY_free(k);
    } else {
        if (o->chipset) {
            const char *p = o->chipset;
            uint16_t vid = (uint16_t)hex_field(&p, "--chipset", 0xffff, ':');
            uint16_t did = (uint16_t)hex_field(&p, "--chipset", 0xffff, 0);
            if (a.nr_chipsets == 0)
                die("%s: the chipset list is empty", path);
            memcpy(d + a.chipsets_off + offsetof(struct txt_acm_chipset_id, vendor_id), &vid, 2);
            memcpy(d + a.chipsets_off + offsetof(struct txt_acm_chipset_id, device_id), &did, 2);
            memcpy(d + offsetof(struct txt_acm_hdr, chipset_id), &did, 2);
        } else {
            if (a.nr_procs == 0)
                die("%s: no processor list", path);
            struct txt_acm_processor_id c;
            acm_processor(d, &a, 0, &c);
            c.fms = o->fms & c.fms_mask;
            memcpy(d + a.procs_off, &c, sizeof(c));
        }
        if (o->key) {
            EVP_PKEY *k = key_load(o->key);
            acm_sign(d, a.size, k);
            EVP_PKEY_free(k);
        }
    }
    write_out(o->out, d, len);
    free(d);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "key", required_argument, NULL, 'k' },
        { "fms", required_argument, NULL, 'f' },
        { "didvid", required_argument, NULL, 'd' },
        { "date", required_argument, NULL, 'D' },
        { "flip-byte", required_argument, NULL, 'b' },
        { "chipset", required_argument, NULL, 'c' },
        { "resign", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct opts o = { 0 };
    int c;

    /* GNU getopt moves the command and its file after the options */
    while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        switch (c) {
        case 'k': o.key = optarg; break;
        case 'o': o.out = optarg; break;
        case 'f': o.has_fms = true; o.fms = (uint32_t)parse_num(optarg, "--fms", 0xffffffffu); break;
        case 'd': o.didvid = optarg; break;
        case 'D': o.date = optarg; break;
        case 'b': o.has_flip = true; o.flip = parse_num(optarg, "--flip-byte", UINT32_MAX); break;
        case 'c': o.chipset = optarg; break;
        case 'r': o.resign = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    int np = argc - optind;
    char **pos = argv + optind;
    if (np < 1) {
        usage(stderr);
        return 2;
    }
    const char *cmd = pos[0], *arg = pos[1];
    if (np != 2)
        die("%s needs exactly one file argument (see --help)", cmd);
    if (strcmp(cmd, "keygen") == 0)
        return cmd_keygen(arg);
    if (strcmp(cmd, "key-hash") == 0)
        return cmd_key_hash(arg);
    if (strcmp(cmd, "make") == 0)
        return cmd_make(arg, &o);
    if (strcmp(cmd, "sign") == 0)
        return cmd_sign(arg, &o);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(arg);
    if (strcmp(cmd, "break") == 0)
        return cmd_break(arg, &o);
    fprintf(stderr, "vtboot-acm: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
