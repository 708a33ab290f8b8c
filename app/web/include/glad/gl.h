/* The web build's <glad/gl.h>: no loader in a browser; the GL ES 3.0 (WebGL 2) entry points come from
   emscripten's headers. Only the names the app uses from glad are defined here. */
#ifndef SMLAB_WEB_GLAD_GL_H
#define SMLAB_WEB_GLAD_GL_H
#include <GLES3/gl3.h>
typedef void (*GLADapiproc)(void);
typedef GLADapiproc (*GLADloadfunc)(const char* name);
#endif
