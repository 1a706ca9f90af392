# python/: the `itrace` Python package (python/README.md), a CPython
# extension (python/src/) over libitrace and libitrace-code, built for
# Debian's /usr/bin/python3 (a pyenv shim may come first on PATH:
# PYTHON=... chooses another interpreter) into $(BUILD)/python/itrace/,
# so that PYTHONPATH=$(BUILD)/python $(PYTHON) -c 'import itrace' works.
#
# The extension links the two libraries' archives (objects built -fPIC)
# statically, their symbols kept local (--exclude-libs): the module is
# self-contained, imports from the build tree without LD_LIBRARY_PATH and
# cannot meet another libitrace in the process.  pip install ./python
# builds the same with setuptools (python/setup.py).
PY_CONFIG := $(shell $(PYTHON) -c 'import sysconfig as s; print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"), s.get_paths()["platlib"])' 2>/dev/null)
PY_INCLUDE := $(word 1,$(PY_CONFIG))
PY_EXT_SUFFIX := $(word 2,$(PY_CONFIG))
PY_SITE ?= $(word 3,$(PY_CONFIG))
PY_PKG := $(BUILD)/python/itrace
PY_EXT := $(PY_PKG)/_itrace$(PY_EXT_SUFFIX)
PY_SRCS := $(wildcard python/src/*.c)
PY_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(PY_SRCS))
PY_FILES := $(patsubst python/itrace/%,$(PY_PKG)/%,$(wildcard python/itrace/*.py))

# Python's headers are system headers: the project's warnings are ours.
$(PY_OBJS): ALL_CPPFLAGS += -isystem $(PY_INCLUDE) -Ipython/src
$(PY_EXT): $(PY_OBJS) $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -shared -Wl,--exclude-libs,ALL -o $@ $(PY_OBJS) \
		$(LIBITRACE_CODE) $(LIBITRACE) $(LIBITRACE_CODE_LIBS)
$(PY_PKG)/%.py: python/itrace/%.py
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

# Without Python's headers (python3-dev) no package (the Makefile says
# so); without the code layer the Makefile empties TEST_DATA.
ifeq ($(call have,python3-dev),yes)
# (build-all builds PY_BUILT; the Makefile empties it without the code layer)
PY_BUILT := $(PY_EXT) $(PY_FILES)
INSTALL_EXTRA += install -d $(DESTDIR)$(PY_SITE)/itrace && \
	install -m 644 $(PY_FILES) $(DESTDIR)$(PY_SITE)/itrace/ && \
	install -m 755 $(PY_EXT) $(DESTDIR)$(PY_SITE)/itrace/ ;
endif

E2E_TESTS += tests/e2e/python.sh
BENCHES += bench/python_speed.sh

# bench/python_speed.sh's C side: a synthetic trace and the C reader's speed.
PY_CREAD := $(BUILD)/bench/python-cread
$(PY_CREAD): $(BUILD)/obj/bench/python_cread.o $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBITRACE_LIBS)
bench/python_speed.sh: $(PY_CREAD) $(PY_BUILT)
