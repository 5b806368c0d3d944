/* SPDX-License-Identifier: MIT */
/* options_parse(): tboot's command line syntax and vtboot's options. */
#include "test_common.h"

#include "boot/options.h"

static struct vtboot_options o, def;
static struct options_diag d;

static void parse(const char *cmdline)
{
    options_defaults(&o);
    memset(&d, 0xee, sizeof(d));
    options_parse(&o, cmdline, &d);
}

static void defaults(void **state)
{
    (void)state;
    options_defaults(&def);
    assert_true(def.log_serial);
    assert_true(def.log_memory);
    assert_int_equal(def.loglvl, 0xf);
    assert_int_equal(def.serial_baud, 115200);
    assert_int_equal(def.serial_clock_hz, 1843200);
    assert_int_equal(def.serial_port, 0x3f8);
    assert_int_equal(def.serial_lcr, 0x03);
    parse("");
    assert_memory_equal(&o, &def, sizeof(o));
    assert_int_equal(d.n, 0);
    parse("   \t  ");
    assert_memory_equal(&o, &def, sizeof(o));
}

static void tokens_without_equals_ignored(void **state)
{
    (void)state;
    options_defaults(&def);
    parse("/boot/vtboot.gz");
    assert_memory_equal(&o, &def, sizeof(o));
    parse("/vtboot.gz loglvl intel_iommu =x = logging");
    assert_memory_equal(&o, &def, sizeof(o));
    assert_int_equal(d.n, 0);
    /* unknown names are ignored silently */
    parse("foo=bar vga_delay=5 min_ram=0x2000000");
    assert_memory_equal(&o, &def, sizeof(o));
    assert_int_equal(d.n, 0);
}

static void logging(void **state)
{
    (void)state;
    parse("logging=serial");
    assert_true(o.log_serial);
    assert_false(o.log_memory);
    parse("/vtboot.gz logging=memory");
    assert_false(o.log_serial);
    assert_true(o.log_memory);
    parse("logging=vga");
    assert_false(o.log_serial);
    assert_false(o.log_memory);
    parse("logging=none");
    assert_false(o.log_serial);
    assert_false(o.log_memory);
    parse("logging=serial,vga,memory");
    assert_true(o.log_serial);
    assert_true(o.log_memory);
    /* a bad item: the whole value is ignored and reported */
    parse("logging=serial,usb");
    assert_true(o.log_serial);
    assert_true(o.log_memory);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msg[0], "ignoring bad value 'serial,usb' for logging");
    parse("logging=Serial");
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msg[0], "ignoring bad value 'Serial' for logging");
    parse("logging=serialx");
    assert_int_equal(d.n, 1);
    /* the last one wins */
    parse("logging=memory logging=serial");
    assert_true(o.log_serial);
    assert_false(o.log_memory);
}

static void loglvl(void **state)
{
    (void)state;
    parse("loglvl=err");
    assert_int_equal(o.loglvl, LOG_ERR);
    parse("loglvl=err,warn");
    assert_int_equal(o.loglvl, LOG_ERR | LOG_WARN);
    parse("loglvl=info,detail");
    assert_int_equal(o.loglvl, LOG_INFO | LOG_DETAIL);
    parse("loglvl=none");
    assert_int_equal(o.loglvl, 0);
    parse("loglvl=all");
    assert_int_equal(o.loglvl, 0xf);
    parse("loglvl=warn,bogus");
    assert_int_equal(o.loglvl, 0xf);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msg[0], "ignoring bad value 'warn,bogus' for loglvl");
}

static void prefix_matching(void **state)
{
    (void)state;
    /* like tboot: a name matches an option it is a prefix of; the first such option wins */
    parse("loglv=err");
    assert_int_equal(o.loglvl, LOG_ERR);
    parse("logl=warn");
    assert_int_equal(o.loglvl, LOG_WARN);
    parse("logg=memory");
    assert_false(o.log_serial);
    assert_true(o.log_memory);
    parse("log=memory");                 /* logging comes first */
    assert_false(o.log_serial);
    assert_int_equal(o.loglvl, 0xf);
    parse("l=serial");
    assert_false(o.log_memory);
    parse("ser=9600");
    assert_int_equal(o.serial_baud, 9600);
    parse("s=19200");
    assert_int_equal(o.serial_baud, 19200);
    /* a name longer than the option is not a match */
    parse("loglvl2=err serialx=9600 loggingg=none");
    options_defaults(&def);
    assert_memory_equal(&o, &def, sizeof(o));
    assert_int_equal(d.n, 0);
}

static void serial(void **state)
{
    (void)state;
    parse("serial=9600");
    assert_int_equal(o.serial_baud, 9600);
    assert_int_equal(o.serial_clock_hz, 1843200);
    assert_int_equal(o.serial_port, 0x3f8);
    assert_int_equal(o.serial_lcr, 0x03);
    parse("serial=115200,8n1,0x2f8");
    assert_int_equal(o.serial_baud, 115200);
    assert_int_equal(o.serial_port, 0x2f8);
    assert_int_equal(o.serial_lcr, 0x03);
    parse("serial=57600/3686400,7e2,0x3e8");
    assert_int_equal(o.serial_baud, 57600);
    assert_int_equal(o.serial_clock_hz, 3686400);
    assert_int_equal(o.serial_port, 0x3e8);
    assert_int_equal(o.serial_lcr, 0x02 | 0x04 | 0x18);
    parse("serial=1200,5o1");
    assert_int_equal(o.serial_baud, 1200);
    assert_int_equal(o.serial_lcr, 0x00 | 0x08);
    assert_int_equal(o.serial_port, 0x3f8);
    parse("serial=38400,6n2,1016");      /* decimal port */
    assert_int_equal(o.serial_lcr, 0x01 | 0x04);
    assert_int_equal(o.serial_port, 1016);
    /* tboot's irq and PCI fields after the port are accepted and ignored */
    parse("serial=115200,8n1,0x3f8,4,0:16.3");
    assert_int_equal(o.serial_port, 0x3f8);
    assert_int_equal(d.n, 0);
    parse("serial=115200/0x1c2000");
    assert_int_equal(o.serial_clock_hz, 0x1c2000);
}

static void serial_bad_values(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "serial=", "serial=fast", "serial=1199", "serial=115201", "serial=0",
        "serial=9600/0", "serial=9600/", "serial=9600/x",
        "serial=9600,9n1", "serial=9600,4n1", "serial=9600,8x1", "serial=9600,8n3",
        "serial=9600,8n", "serial=9600,8", "serial=9600,", "serial=9600,8n1,0",
        "serial=9600,8n1,0xfff9", "serial=9600,8n1,0x", "serial=9600,8n1,port",
        "serial=9600x", "serial=9600,8n1x", "serial=9600,8n1,0x3f8x",
        "serial=99999999999", "serial=9600/4294967296", "serial=0x",
    };
    options_defaults(&def);
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        parse(bad[i]);
        if (memcmp(&o, &def, sizeof(o)) != 0)
            fail_msg("'%s' changed the options", bad[i]);
        if (d.n != 1)
            fail_msg("'%s': %u warnings", bad[i], d.n);
        char want[96];
        snprintf(want, sizeof(want), "ignoring bad value '%s' for serial", bad[i] + 7);
        assert_string_equal(d.msg[0], want);
    }
    /* the largest port is fine */
    parse("serial=9600,8n1,0xfff8");
    assert_int_equal(o.serial_port, 0xfff8);
    assert_int_equal(d.n, 0);
}

static void several_and_diag_limits(void **state)
{
    (void)state;
    parse("/vtboot.gz\tlogging=serial  loglvl=err,warn\tserial=9600,8n1,0x2f8 extra");
    assert_true(o.log_serial);
    assert_false(o.log_memory);
    assert_int_equal(o.loglvl, 3);
    assert_int_equal(o.serial_baud, 9600);
    assert_int_equal(o.serial_port, 0x2f8);
    assert_int_equal(d.n, 0);
    /* at most 4 warnings are kept */
    parse("serial=1 serial=2 serial=3 logging=x loglvl=y serial=6");
    assert_int_equal(d.n, 4);
    assert_string_equal(d.msg[0], "ignoring bad value '1' for serial");
    assert_string_equal(d.msg[3], "ignoring bad value 'x' for logging");
    /* no diag at all is fine */
    options_defaults(&o);
    options_parse(&o, "serial=bad loglvl=err", NULL);
    assert_int_equal(o.loglvl, LOG_ERR);
    /* on top of what is there, not on top of the defaults */
    options_defaults(&o);
    o.serial_port = 0x2e8;
    options_parse(&o, "serial=9600", &d);
    assert_int_equal(o.serial_port, 0x2e8);
}

static void long_names_and_values(void **state)
{
    (void)state;
    char line[300];
    /* a value is cut to 63 characters, as tboot does */
    snprintf(line, sizeof(line), "logging=vga,%s", "serial,serial,serial,serial,serial,serial,"
                                                   "serial,serial,serial,serial");
    parse(line);
    assert_int_equal(d.n, 1);                   /* cut in the middle of an item: "ser" */
    assert_contains(d.msg[0], "ignoring bad value 'vga,serial,serial,serial,serial,serial,"
                              "serial,serial,serial,ser' for loggin");
    /* the warning itself is cut to its buffer, terminated */
    assert_int_equal(strlen(d.msg[0]), 95);
    /* 63 characters exactly is kept whole */
    parse("loglvl=err,err,err,err,err,err,err,err,err,err,err,err,err,err,err,err");
    assert_int_equal(o.loglvl, LOG_ERR);
    /* cut at an item boundary: 9 x "serial," is exactly 63 and valid */
    parse("logging=serial,serial,serial,serial,serial,serial,serial,serial,serial,usb");
    assert_int_equal(d.n, 0);
    assert_true(o.log_serial);
    assert_false(o.log_memory);
    /* a name of 64 or more characters is skipped */
    memset(line, 's', 64);
    strcpy(line + 64, "=9600");
    parse(line);
    assert_int_equal(o.serial_baud, 115200);
    assert_int_equal(d.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(tokens_without_equals_ignored),
        cmocka_unit_test(logging),
        cmocka_unit_test(loglvl),
        cmocka_unit_test(prefix_matching),
        cmocka_unit_test(serial),
        cmocka_unit_test(serial_bad_values),
        cmocka_unit_test(several_and_diag_limits),
        cmocka_unit_test(long_names_and_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
