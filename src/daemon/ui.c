/* The dashboard bundle (ui.h): a stub with no assets. */
#include "ui.h"

int g16d_ui_asset(const char *path, const unsigned char **data, size_t *len, const char **mime) {
    (void)path;
    *data = NULL;
    *len = 0;
    *mime = NULL;
    return 0;
}
