/* daemon layer: the dashboard's static bundle (docs/api.md, "Dashboard").
 *
 * g16d serves GET / and GET /ui/<name> from assets compiled into the binary
 * (ui.c), without the bearer token: the page asks for the token and sends
 * it with its data requests. */
#ifndef G16_DAEMON_UI_H
#define G16_DAEMON_UI_H

#include <stddef.h>

/* The asset at path: the part of the URL after "/ui/" ("app.js" for
 * GET /ui/app.js), or "index.html" for GET /. Returns 1 and sets *data,
 * *len and *mime (static storage, never freed) if the bundle has it, else
 * 0 (the daemon answers 404). */
int g16d_ui_asset(const char *path, const unsigned char **data, size_t *len, const char **mime);

#endif
