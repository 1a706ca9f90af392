# collectors/ptrace: the ptrace backend of itrace-collect (backend -> stop
# -> step -> proc -> bp, one way; ptrace_internal.h is their session).
# Included by collectors/module.mk before its link rule; the objects take
# collectors/'s flags (-Icollectors -Itools).
PTRACE_SRCS := $(sort $(wildcard collectors/ptrace/*.c))
COLLECT_BACKEND_OBJS += $(patsubst %.c,$(BUILD)/obj/%.o,$(PTRACE_SRCS))
