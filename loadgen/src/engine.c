#define _GNU_SOURCE
#include "engine.h"
#include "lg_config.h"

#include <errno.h>
#include <string.h>

static const struct lg_engine_ops *const engines[] = {
#if LG_HAVE_IO_URING
	&lg_engine_uring,
#endif
	&lg_engine_psync,
};

static const char *const engine_names[] = {
#if LG_HAVE_IO_URING
	"io_uring",
#endif
	"psync",
	NULL,
};

int lg_engine_find(const char *name, const struct lg_engine_ops **ret_ops)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		if (strcmp(engines[i]->name, name) == 0) {
			*ret_ops = engines[i];
			return 0;
		}
	}
	return -ENOENT;
}

const struct lg_engine_ops *lg_engine_default(void)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		if (engines[i]->probe() == 0)
			return engines[i];
	}
	return &lg_engine_psync;
}

const char *const *lg_engine_names(void)
{
	return engine_names;
}
