# collectors/: itrace-collect and its backends (see collectors/backend.h).
#
# Backends in subfolders (collectors/bts/, collectors/gdb/, ...) have their
# own module.mk that APPENDS (+=) their objects to COLLECT_BACKEND_OBJS and
# their libraries to COLLECT_BACKEND_LIBS.  They are included here, before
# the link rule reads those variables.
COLLECT_BACKEND_OBJS :=
COLLECT_BACKEND_LIBS :=
-include $(sort $(wildcard collectors/*/module.mk))
