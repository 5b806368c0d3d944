/* SPDX-License-Identifier: MIT */
/* expectopt.h: the expected-launch options through getopt_long with EXPECT_LONGOPTS, their
 * limits and errors, and the module layout expect_opts_files() hands expect_load(). */
#include "unit.h"
#include "expectopt.h"

#include <getopt.h>
#include <string.h>

enum { O_OTHER = 256, O_EXPECT };

/* getopt_long over argv (NULL-terminated) as a tool does: 0, or -1 at the first refusal */
static int parse(struct expect_opts *o, bool xen, char **argv)
{
    static const struct option both[] = {
        EXPECT_LONGOPTS(O_EXPECT), EXPECT_LONGOPTS_XEN(O_EXPECT), EXPECT_LONGOPTS_TXT(O_EXPECT),
        { "other", required_argument, NULL, O_OTHER }, { NULL, 0, NULL, 0 },
    };
    static const struct option plain[] = {
        EXPECT_LONGOPTS(O_EXPECT),
        { "other", required_argument, NULL, O_OTHER }, { NULL, 0, NULL, 0 },
    };
    int argc = 0, c;

    while (argv[argc])
        argc++;
    expect_opts_init(o, "t_expectopt (a refusal the test wants)", xen);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", xen ? both : plain, NULL)) != -1) {
        if (c == O_OTHER)
            continue;
        if (c < O_EXPECT || c >= O_EXPECT + EXPECT_OPT_N || expect_opt(o, c - O_EXPECT, optarg))
            return -1;
    }
    return optind == argc ? 0 : -1;
}

static bool is(const char *got, const char *want)
{
    return got && want ? !strcmp(got, want) : got == want;
}

static void test_layout(void)
{
    char *argv[] = { "t", "--vtboot", "vt", "--vtboot-cmdline", "logging=serial", "--kernel", "bz",
                     "--cmdline", "bz ro", "--initrd", "rd", "--initrd-cmdline", "rd x",
                     "--other", "o", "--module", "m1=a=b", "--module", "m2", "--module", "m3=",
                     "--policy", "pol", "--pcr-map", "legacy", "--xen", "xen.gz",
                     "--xen-cmdline", "xen c", NULL };
    struct expect_opts o;
    struct expect_files f;

    memset(&f, 0xa5, sizeof(f));
    CHECK(parse(&o, true, argv) == 0, "every option taken");
    CHECK(is(o.vtboot, "vt") && is(o.vtboot_cmdline, "logging=serial") && is(o.kernel, "bz") &&
          is(o.cmdline, "bz ro") && is(o.initrd, "rd") && is(o.initrd_cmdline, "rd x") &&
          is(o.xen_file, "xen.gz") && is(o.xen_cmdline, "xen c") && is(o.policy, "pol"),
          "the values as given");
    CHECK(o.map == PCR_MAP_LEGACY && o.nextra == 3, "map %d, %u modules", o.map, o.nextra);
    expect_opts_files(&o, &f);
    CHECK(is(f.vtboot, "vt") && is(f.vtboot_cmdline, "logging=serial") && is(f.policy, "pol") &&
          f.map == PCR_MAP_LEGACY, "vtboot, policy, map");
    CHECK(f.nr_modules == 6, "6 modules, got %u", f.nr_modules);
    if (f.nr_modules == 6) {
        static const char *const want[6][2] = {
            { "xen.gz", "xen c" }, { "bz", "bz ro" }, { "rd", "rd x" }, { "m1", "a=b" },
            { "m2", "" }, { "m3", "" },
        };

        for (unsigned i = 0; i < 6; i++)
            CHECK(is(f.modules[i].file, want[i][0]) && is(f.modules[i].cmdline, want[i][1]),
                  "module %u: '%s' '%s'", i, f.modules[i].file, f.modules[i].cmdline);
    }
    expect_opts_free(&o);
    CHECK(!o.files[0] && !o.files[2], "the file names freed");
}

static void test_defaults(void)
{
    char *argv[] = { "t", "--kernel", "bz", NULL };
    char *none[] = { "t", NULL };
    struct expect_opts o;
    struct expect_files f;

    CHECK(parse(&o, false, none) == 0, "no options");
    CHECK(!o.vtboot && !o.vtboot_cmdline && !o.kernel && !o.cmdline && !o.initrd &&
          !o.initrd_cmdline && !o.xen_file && !o.xen_cmdline && !o.policy && !o.nextra &&
          o.map == PCR_MAP_DA, "what is not given stays NULL; the map is DA");
    CHECK(parse(&o, false, argv) == 0, "--kernel only");
    expect_opts_files(&o, &f);
    CHECK(!f.vtboot && is(f.vtboot_cmdline, "") && !f.policy && f.map == PCR_MAP_DA,
          "no vtboot, empty command line, no policy (the tool chooses)");
    CHECK(f.nr_modules == 1 && is(f.modules[0].file, "bz") && is(f.modules[0].cmdline, ""),
          "the kernel alone, its string empty");
    expect_opts_files(&o, &f);
    CHECK(f.nr_modules == 1, "laid out again: the same, not appended");
    expect_opts_free(&o);
    expect_opts_free(&o);
}

static void test_refusals(void)
{
    char *legacy[] = { "t", "--pcr-map", "da", "--pcr-map", "legacy", NULL };
    char *da[] = { "t", "--pcr-map", "legacy", "--pcr-map", "da", NULL };
    char *bad[] = { "t", "--pcr-map", "Legacy", NULL };
    char *xen[] = { "t", "--xen", "x", NULL };
    char *mods[4 + 2 * PREDICT_MAX_MODULES] = { "t" };
    struct expect_opts o;

    CHECK(parse(&o, false, legacy) == 0 && o.map == PCR_MAP_LEGACY, "the last --pcr-map wins");
    CHECK(parse(&o, false, da) == 0 && o.map == PCR_MAP_DA, "--pcr-map da");
    CHECK(parse(&o, false, bad) == -1, "--pcr-map Legacy refused");
    CHECK(parse(&o, false, xen) == -1, "--xen only where the tool lists it");
    CHECK(expect_opt(&o, EXPECT_OPT_N, "x") == -1 && expect_opt(&o, -1, "x") == -1,
          "no such option");

    /* the modules: PREDICT_MAX_MODULES less the kernel and the initrd (and Xen) */
    for (int xen_on = 0; xen_on < 2; xen_on++) {
        unsigned max = PREDICT_MAX_MODULES - (xen_on ? 3 : 2);

        for (unsigned i = 0; i < max; i++) {
            mods[1 + 2 * i] = "--module";
            mods[2 + 2 * i] = "m";
        }
        mods[1 + 2 * max] = NULL;
        CHECK(parse(&o, xen_on, mods) == 0 && o.nextra == max, "xen %d: %u modules", xen_on, max);
        mods[1 + 2 * max] = "--module";
        mods[2 + 2 * max] = "m";
        mods[3 + 2 * max] = NULL;
        CHECK(parse(&o, xen_on, mods) == -1 && o.nextra == max, "xen %d: one more refused",
              xen_on);
    }
}

/* --sinit, --os-sinit-caps, --lcp-policy (EXPECT_LONGOPTS_TXT) and expect_opts_txt */
static void test_txt(void)
{
    char *caps[] = { "t", "--kernel", "bz", "--sinit", "/nonexistent/sinit.bin",
                     "--os-sinit-caps", "0x201", NULL };
    char *big[] = { "t", "--os-sinit-caps", "0x100000000", NULL };
    char *junk[] = { "t", "--os-sinit-caps", "6x", NULL };
    char *lcp[] = { "t", "--lcp-policy", "p", NULL };
    char *none[] = { "t", NULL };
    struct expect_opts o;
    struct txt_expect t;
    struct predict_input in;
    char err[256];

    CHECK(parse(&o, true, none) == 0 && o.os_sinit_caps == TXT_EXPECT_TBOOT_OS_SINIT_CAPS &&
          !o.caps_given && !o.sinit && !o.lcp_policy, "tboot's capabilities unless given");
    memset(&in, 0, sizeof(in));
    CHECK(expect_opts_txt(&o, &t, &in, err, sizeof(err)) == 0 && !in.txt && !in.mle_bank,
          "no --sinit: vtboot's launch");
    CHECK(parse(&o, false, caps) == -1, "--sinit only where the tool lists it");
    CHECK(parse(&o, true, caps) == 0 && is(o.sinit, "/nonexistent/sinit.bin") &&
          o.os_sinit_caps == 0x201 && o.caps_given, "--sinit and --os-sinit-caps taken");
    CHECK(expect_opts_txt(&o, &t, &in, err, sizeof(err)) == -1 &&
          !strcmp(err, "cannot read /nonexistent/sinit.bin: No such file or directory") &&
          !in.txt, "a SINIT that cannot be read: '%s'", err);
    CHECK(parse(&o, true, big) == -1 && parse(&o, true, junk) == -1,
          "capabilities over 32 bits or not a number refused");
    CHECK(parse(&o, true, lcp) == 0 && expect_opts_txt(&o, &t, &in, err, sizeof(err)) == -1 &&
          !strcmp(err, "--lcp-policy needs --sinit"), "--lcp-policy alone: '%s'", err);
}

void test_expectopt(void)
{
    test_txt();
    test_layout();
    test_defaults();
    test_refusals();
}
