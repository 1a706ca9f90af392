# collectors/gdb/: the gdb remote protocol backend of itrace-collect
# (collect_backend_gdb), linked in through COLLECT_BACKEND_OBJS/LIBS
# (collectors/module.mk).  Target descriptions are parsed with libxml2.
GDB_BACKEND_SRCS := collectors/gdb/gdb_backend.c collectors/gdb/gdb_target.c \
	collectors/gdb/gdb_arch.c collectors/gdb/gdb_elf.c collectors/gdb/arch_ppc.c \
	collectors/gdb/rsp.c collectors/gdb/tdesc.c
GDB_BACKEND_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(GDB_BACKEND_SRCS))
$(GDB_BACKEND_OBJS): ALL_CPPFLAGS += -Itools $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
# Without libxml2 (the Makefile's "What the installed packages allow") the
# backend is left out, but for gdb_elf.o, which the qemu backend uses.
ifeq ($(call have,libxml2-dev),yes)
COLLECT_BACKEND_OBJS += $(GDB_BACKEND_OBJS)
COLLECT_BACKEND_LIBS += $(shell pkg-config --libs libxml-2.0 2>/dev/null)
else
COLLECT_BACKEND_OBJS += $(BUILD)/obj/collectors/gdb/gdb_elf.o
endif

E2E_TESTS += $(sort $(wildcard tests/e2e/gdb_*.sh))

# Unit test tests/unit/test_gdb.c: arch_ppc, tdesc, rsp (the objects
# are prerequisites, so the generic rule's $^ links them).
UNIT_LIBS_gdb := $(shell pkg-config --libs libxml-2.0 2>/dev/null)
$(BUILD)/tests/test_gdb: $(BUILD)/obj/collectors/gdb/arch_ppc.o \
	$(BUILD)/obj/collectors/gdb/tdesc.o $(BUILD)/obj/collectors/gdb/rsp.o
$(BUILD)/obj/tests/unit/test_gdb.o: ALL_CPPFLAGS += -Icollectors/gdb
