# CMAKE_USER_MAKE_RULES_OVERRIDE_CXX of x86_64-w64-mingw32.cmake: read after the platform files
# set the default libraries (kernel32, user32, ...), which a toolchain file cannot add to.
string(APPEND CMAKE_CXX_STANDARD_LIBRARIES_INIT " -lws2_32 -lmswsock -lpsapi")
