/* The web build's stb_image_write implementation (the native build links Debian's libstb.so). */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
