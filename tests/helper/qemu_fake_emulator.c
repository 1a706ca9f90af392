/*
 * qemu_fake_emulator.c - an "emulator" for the qemu backend's error tests: it loads
 * the itrace plugin the way qemu-user does (-plugin PATH,ARGS) and calls
 * its qemu_plugin_install() with a plugin API version range of its own
 * (FAKE_QEMU_API="MIN CUR", default "2 3", newer than the plugin's), so
 * that the version mismatch is reported as QEMU 9 would make it happen.
 * It exports the plugin entry point the backend looks for, as a real
 * qemu-user with plugin support does.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

/* (The backend checks that the emulator exports the plugin API.) */
__attribute__((visibility("default"))) void
qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb)
{
	(void)id, (void)cb;
}

typedef int (*install_fn)(qemu_plugin_id_t, const qemu_info_t *, int, char **);

int main(int argc, char **argv)
{
	const char *api = getenv("FAKE_QEMU_API");
	qemu_info_t info = {.target_name = "ppc64le", .version = {2, 3}};
	char *args[8], *spec = NULL;
	int nargs = 0;
	install_fn install;
	void *h;

	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "-plugin") == 0)
			spec = argv[i + 1];
	if (api)
		sscanf(api, "%d %d", &info.version.min, &info.version.cur);
	if (!spec) {
		fprintf(stderr, "fake-qemu: no -plugin\n");
		return 1;
	}
	for (char *tok = strtok(spec, ","); tok && nargs < 8; tok = strtok(NULL, ","))
		args[nargs++] = tok;
	h = dlopen(args[0], RTLD_LAZY | RTLD_LOCAL);
	install = h ? (install_fn)(uintptr_t)dlsym(h, "qemu_plugin_install") : NULL;
	if (!install) {
		fprintf(stderr, "fake-qemu: %s\n", dlerror());
		return 1;
	}
	return install(1, &info, nargs - 1, args + 1) == 0 ? 0 : 1;
}
