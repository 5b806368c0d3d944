/* SPDX-License-Identifier: MIT */
#include "tpmctrl.h"
#include "lib/bytes.h"

size_t tpmctrl_request_len(const uint8_t *buf, size_t have)
{
    uint32_t cmd;

    if (have < 4)
        return 0;
    cmd = load_be32(buf);
    switch (cmd) {
    case CMD_INIT:
    case CMD_SET_LOCALITY:
    case CMD_RESET_TPMESTABLISHED:
    case CMD_SET_BUFFERSIZE:
    case CMD_LOCK_STORAGE:
        return 4 + 4;
    case CMD_GET_STATEBLOB:
        return 4 + 12;
    case CMD_GET_INFO:
        return 4 + 16;
    case CMD_SET_STATEBLOB:
        if (have < 4 + 12)
            return 0;
        return 4 + 12 + (size_t)load_be32(buf + 4 + 8);
    case CMD_HASH_DATA:
        if (have < 8)
            return 0;
        return 8 + (size_t)load_be32(buf + 4);
    default:
        /* GET_CAPABILITY, SHUTDOWN, GET_TPMESTABLISHED, HASH_START/END, CANCEL,
         * STORE_VOLATILE, STOP, GET_CONFIG, SET_DATAFD and unknown ones: no body */
        return 4;
    }
}

size_t tpmctrl_response_len(uint32_t cmd, const uint8_t *buf, size_t have)
{
    switch (cmd) {
    case CMD_GET_CAPABILITY:
    case CMD_GET_TPMESTABLISHED:
    case CMD_GET_CONFIG:
        return 8;
    case CMD_SET_BUFFERSIZE:
        return 16;
    case CMD_GET_STATEBLOB:
        /* {res, flags, totlength, length} then the blob (QEMU reads totlength more) */
        if (have < 16)
            return 0;
        return 16 + (size_t)load_be32(buf + 8);
    case CMD_GET_INFO:
        if (have < 12)
            return 0;
        return 12 + (size_t)load_be32(buf + 8);
    default:
        return 4;
    }
}

const char *tpmctrl_cmd_name(uint32_t cmd)
{
    static const char *const names[] = {
        "?", "GET_CAPABILITY", "INIT", "SHUTDOWN", "GET_TPMESTABLISHED", "SET_LOCALITY",
        "HASH_START", "HASH_DATA", "HASH_END", "CANCEL_TPM_CMD", "STORE_VOLATILE",
        "RESET_TPMESTABLISHED", "GET_STATEBLOB", "SET_STATEBLOB", "STOP", "GET_CONFIG",
        "SET_DATAFD", "SET_BUFFERSIZE", "GET_INFO", "LOCK_STORAGE",
    };

    return cmd < sizeof(names) / sizeof(names[0]) ? names[cmd] : "?";
}
