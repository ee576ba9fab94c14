# Finds pthreadpool (Debian: libpthreadpool-dev) and defines the imported target
# pthreadpool::pthreadpool. Debian ships neither a CMake config nor a pkg-config file for it.
include(FindPackageHandleStandardArgs)
include(CMakeFindDependencyMacro)
find_path(pthreadpool_INCLUDE_DIR NAMES pthreadpool.h)
find_library(pthreadpool_LIBRARY NAMES pthreadpool)
find_package_handle_standard_args(pthreadpool
  REQUIRED_VARS pthreadpool_LIBRARY pthreadpool_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install the Debian package libpthreadpool-dev (apt-get install libpthreadpool-dev)")
if(pthreadpool_FOUND AND NOT TARGET pthreadpool::pthreadpool)
  find_dependency(Threads)
  add_library(pthreadpool::pthreadpool UNKNOWN IMPORTED)
  set_target_properties(pthreadpool::pthreadpool PROPERTIES
    IMPORTED_LOCATION "${pthreadpool_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${pthreadpool_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(pthreadpool_INCLUDE_DIR pthreadpool_LIBRARY)
