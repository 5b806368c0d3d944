/* SPDX-License-Identifier: MIT */
#include "swtpm.h"
#include "strv.h"

#include <stddef.h>

int swtpm_start(struct proc *p, const char *statedir, int ctrl_fd, bool is_client,
                const char *log_path)
{
    struct strv a = { 0 };
    struct fdmap fds[1] = { { ctrl_fd, 3 } };
    struct spawn_opts o = { NULL, -1, 2, -1, fds, 1 };
    int rc;

    strv_add(&a, "swtpm");
    strv_add(&a, "socket");
    strv_add(&a, "--tpm2");
    strv_addf(&a, "--tpmstate=dir=%s", statedir);
    strv_addf(&a, "--ctrl=type=unixio,%s=3", is_client ? "clientfd" : "fd");
    if (log_path)
        strv_addf(&a, "--log=file=%s,level=20", log_path);
    rc = proc_spawn(p, "swtpm", a.v, &o);
    strv_free(&a);
    return rc;
}
