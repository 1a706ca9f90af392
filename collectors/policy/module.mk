# collectors/policy/: the trigger language and the window state machine
# (policy.h).  Its objects go into itrace-collect with the backends'
# (COLLECT_BACKEND_OBJS is what collectors/module.mk links beyond
# collectors/*.c).  policy.c is freestanding: the Valgrind tool compiles
# it too (collectors/valgrind/module.mk).
POLICY_OBJS := $(BUILD)/obj/collectors/policy/policy.o $(BUILD)/obj/collectors/policy/policy_parse.o
COLLECT_BACKEND_OBJS += $(POLICY_OBJS)
$(BUILD)/obj/collectors/policy/%.o: ALL_CPPFLAGS += -Icollectors/policy
# (backend.h includes it as "policy/policy.h", under -Icollectors.)

$(BUILD)/obj/tests/unit/test_policy.o: ALL_CPPFLAGS += -Icollectors/policy
$(BUILD)/tests/test_policy: $(POLICY_OBJS)

FUZZ_TARGETS += fuzz_policy_spec
FUZZ_EXTRA_SRCS_fuzz_policy_spec := collectors/policy/policy.c collectors/policy/policy_parse.c
$(BUILD)/obj/tests/fuzz/fuzz_policy_spec.o: ALL_CPPFLAGS += -Icollectors/policy
$(foreach d,fuzz fuzz-ub,$(BUILD)/$(d)/obj/tests/fuzz/fuzz_policy_spec.o): FUZZ_CPPFLAGS += -Icollectors/policy
$(BUILD)/fuzz-replay/fuzz_policy_spec: $(POLICY_OBJS)
