# CMake toolchain file: the unit tests cross-compiled for aarch64 Linux with
# Debian's cross compiler (g++-aarch64-linux-gnu) and run under qemu's
# user-mode emulator (qemu-user: qemu-aarch64), by CTest and by
# gtest_discover_tests alike (CMAKE_CROSSCOMPILING_EMULATOR).  Used by
# `make unit-check-aarch64` (tests/tests.mk), with
# -DRSEQ_GTEST_SOURCE_DIR=/usr/src/googletest.
#
# Variables (cache, -D on the cmake command line):
#   RSEQ_CROSS_PREFIX  compiler prefix (default aarch64-linux-gnu-)
#   RSEQ_CROSS_SYSROOT the target's libraries for qemu -L
#                      (default /usr/aarch64-linux-gnu: libc6-arm64-cross)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(RSEQ_CROSS_PREFIX "aarch64-linux-gnu-" CACHE STRING "cross compiler prefix")
set(RSEQ_CROSS_SYSROOT "/usr/aarch64-linux-gnu" CACHE PATH "target libraries for qemu-aarch64 -L")
set(CMAKE_C_COMPILER "${RSEQ_CROSS_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${RSEQ_CROSS_PREFIX}g++")

find_program(RSEQ_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${RSEQ_QEMU_AARCH64};-L;${RSEQ_CROSS_SYSROOT}")

# Headers and libraries of the target only; programs of the host.
set(CMAKE_FIND_ROOT_PATH "${RSEQ_CROSS_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
