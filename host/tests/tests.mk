# host/tests/tests.mk: the launcher's own tests, with testk, a tiny multiboot test kernel.
# `make host-test` runs them; they are part of `make test`.

HOST_TESTK     := $(OUT)/host/tests/testk.elf
HOST_TESTK_CC  := $(HOST_CC) -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
                  -fno-asynchronous-unwind-tables -mno-sse -mno-mmx -mno-80387 -O2 -g \
                  -Wall -Wextra -Werror -Iinclude
HOST_TESTK_SRC := host/tests/guest/entry.S host/tests/guest/testk.c
HOST_TESTK_OBJ := $(OUT)/host/tests/entry.o $(OUT)/host/tests/testk.o

$(OUT)/host/tests/entry.o: host/tests/guest/entry.S include/abi/multiboot1.h include/abi/multiboot2.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -D__ASSEMBLY__ -c -o $@ $<

$(OUT)/host/tests/testk.o: host/tests/guest/testk.c include/abi/multiboot1.h include/abi/multiboot2.h include/abi/vsenter.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(HOST_TESTK): $(HOST_TESTK_OBJ) host/tests/guest/link.ld
	ld -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
	   -T host/tests/guest/link.ld -o $@ $(HOST_TESTK_OBJ)

HOST_UNIT := $(OUT)/host/tests/host-unit
$(HOST_UNIT): $(patsubst host/%.c,$(HOST_OBJDIR)/%.o,$(wildcard host/tests/unit/*.c)) $(HOST_LIB)
	$(HOST_CC) -o $@ $^ $(HOST_LDLIBS)

-include $(patsubst host/%.c,$(HOST_OBJDIR)/%.d,$(wildcard host/tests/unit/*.c))

.PHONY: host-test host-unit
host-unit: $(HOST_UNIT)
	$(HOST_UNIT)

host-test: host-unit $(BIN)/vtboot-qemu $(HOST_TESTK)
	host/tests/run-tests.sh $(BIN)/vtboot-qemu $(HOST_TESTK)
