# sinit/sinit.mk: our SINIT ACMs (docs/txt-platform.md 3). Today the test ACM of the emulated
# GETSEC[ENTERACCS] (qemu/patches 0005): sinit/test/echo.S -> $(OUT)/test/echo.bin, laid out and
# signed by vtboot-acm with the project key.
#
# The keys live in the cache, never in git (docs 3.3): project-key.pem signs every ACM `make`
# builds, other-key.pem is the wrong key the tests sign with. Each is made once, when absent.

SINIT_KEYDIR     := $(VTBOOT_CACHE)/sinit
SINIT_KEY        := $(SINIT_KEYDIR)/project-key.pem
SINIT_OTHER_KEY  := $(SINIT_KEYDIR)/other-key.pem
SINIT_OBJDIR     := $(OUT)/sinit
SINIT_CC         := $(HOST_CC) -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
                    -fno-asynchronous-unwind-tables -mno-sse -mno-mmx -mno-80387 -O2 -g \
                    -Wall -Wextra -Werror -Iinclude
SINIT_TEST_SRC   := sinit/test/echo.S

# keygen writes a temporary file, then a hard link publishes it: the link either appears whole
# or fails because another make (another OUT, the same cache) got there first, whose key then
# stands. keygen itself never overwrites.
$(SINIT_KEY) $(SINIT_OTHER_KEY): | $(BIN)/vtboot-acm
	@mkdir -p $(@D)
	@$(BIN)/vtboot-acm keygen $@.$$$$.tmp && { ln $@.$$$$.tmp $@ 2>/dev/null || test -s $@; }; \
	 rc=$$?; rm -f $@.$$$$.tmp; exit $$rc

$(SINIT_OBJDIR)/test/%.o: sinit/test/%.S sinit/test/echo.h
	@mkdir -p $(@D)
	$(SINIT_CC) -D__ASSEMBLY__ -c -o $@ $<

$(SINIT_OBJDIR)/test/echo.elf: $(patsubst sinit/%.S,$(SINIT_OBJDIR)/%.o,$(SINIT_TEST_SRC)) \
                               sinit/test/echo.ld
	ld -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
	   -T sinit/test/echo.ld -o $@ $(filter %.o,$^)

$(OUT)/test/echo.bin: $(SINIT_OBJDIR)/test/echo.elf $(BIN)/vtboot-acm $(SINIT_KEY)
	@mkdir -p $(@D)
	$(BIN)/vtboot-acm make $< --key $(SINIT_KEY) -o $@

BUILD += $(OUT)/test/echo.bin $(SINIT_OTHER_KEY)
