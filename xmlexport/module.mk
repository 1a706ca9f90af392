# xmlexport/: itrace-xml, the XML exporter (itrace-profile and Cobertura).
# libexportcli.a and libcli.a are named directly: tools/module.mk, which
# defines them, is read after this fragment.
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
XML_LIBS := $(shell pkg-config --libs libxml-2.0 2>/dev/null)

BINS += $(BUILD)/bin/itrace-xml
$(BUILD)/bin/itrace-xml: $(BUILD)/obj/xmlexport/itrace_xml.o $(BUILD)/lib/libexportcli.a $(BUILD)/lib/libcli.a $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_CODE_LIBS) $(XML_LIBS)

$(BUILD)/obj/xmlexport/%.o: ALL_CPPFLAGS += -Itools $(XML_CFLAGS)

E2E_TESTS += $(sort $(wildcard tests/e2e/xml_*.sh))
