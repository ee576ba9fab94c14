# Finds cpuinfo (Debian: libcpuinfo-dev) and defines the imported target cpuinfo::cpuinfo.
#
# A find module rather than Debian's cpuinfo-config.cmake: that config hard-codes the
# x86_64 multiarch directory, so it cannot serve a cross build against an arm64 sysroot.
include(FindPackageHandleStandardArgs)
find_path(cpuinfo_INCLUDE_DIR NAMES cpuinfo.h)
find_library(cpuinfo_LIBRARY NAMES cpuinfo)
find_package_handle_standard_args(cpuinfo
  REQUIRED_VARS cpuinfo_LIBRARY cpuinfo_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install the Debian package libcpuinfo-dev (apt-get install libcpuinfo-dev)")
if(cpuinfo_FOUND AND NOT TARGET cpuinfo::cpuinfo)
  add_library(cpuinfo::cpuinfo UNKNOWN IMPORTED)
  set_target_properties(cpuinfo::cpuinfo PROPERTIES
    IMPORTED_LOCATION "${cpuinfo_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${cpuinfo_INCLUDE_DIR}")
endif()
mark_as_advanced(cpuinfo_INCLUDE_DIR cpuinfo_LIBRARY)
