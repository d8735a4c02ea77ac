// SPDX-License-Identifier: GPL-2.0
/* lib/util.h: err_wrap() adds context in front of a message and keeps what fits. */
#include "lib/util.h"
#include "unit.h"

void test_util(void)
{
	struct krsi_err err = { "" };
	char long_ctx[300];

	err_set(&err, -ENOENT, "no such file");
	CHECK(err_wrap(&err, -ENOENT, "profile %s", "web") == -ENOENT,
	      "err_wrap: returns the error it is given");
	CHECK_STR(err.msg, "profile web: no such file", "err_wrap: context, a colon, the message");
	err_wrap(&err, -ENOENT, "reload");
	CHECK_STR(err.msg, "reload: profile web: no such file", "err_wrap: wraps twice");
	memset(err.msg, 'x', sizeof(err.msg) - 1);
	err.msg[sizeof(err.msg) - 1] = 0;
	err_wrap(&err, -E2BIG, "ctx");
	CHECK(!strncmp(err.msg, "ctx: xxx", 8) && strlen(err.msg) == sizeof(err.msg) - 1,
	      "err_wrap: a full message keeps what fits after the context");
	memset(long_ctx, 'c', sizeof(long_ctx) - 1);
	long_ctx[sizeof(long_ctx) - 1] = 0;
	err_set(&err, -EINVAL, "m");
	err_wrap(&err, -EINVAL, "%s", long_ctx);
	CHECK(strlen(err.msg) < sizeof(err.msg) && strstr(err.msg, ": m"),
	      "err_wrap: a context too long for its buffer is cut, the message kept");
	CHECK(err_wrap(NULL, -EIO, "x") == -EIO, "err_wrap: no error buffer: only the return");
}
