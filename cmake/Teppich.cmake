# Shared build settings and helpers for every teppich module.
include_guard(GLOBAL)

set(TEPPICH_WARNINGS -Wall -Wextra -Wshadow -Wpointer-arith -Wformat=2
    -Wundef -Wno-unused-parameter)
set(TEPPICH_C_WARNINGS -Wstrict-prototypes -Wmissing-prototypes)
if(TEPPICH_WERROR)
  list(APPEND TEPPICH_WARNINGS -Werror)
endif()

if(TEPPICH_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
  add_compile_options(${_san})
  add_link_options(${_san})
endif()

find_package(PkgConfig REQUIRED)

# teppich_target_defaults(TARGET): warnings for our own code only.
function(teppich_target_defaults target)
  target_compile_options(${target} PRIVATE ${TEPPICH_WARNINGS}
    $<$<COMPILE_LANGUAGE:C>:${TEPPICH_C_WARNINGS}>)
endfunction()

# teppich_unit_test(NAME SOURCES a.c b.c LIBS lib1 lib2)
# A cmocka test executable registered with ctest under the label "unit".
function(teppich_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
  add_executable(${name} ${T_SOURCES})
  teppich_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CMOCKA)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS unit
    ENVIRONMENT "TEPPICH_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()

# teppich_e2e_test(NAME SCRIPT path.sh [ARGS ...])
# A bash script that drives the real teppich binary. The script gets
# TEPPICH=<binary>, TEPPICH_SOURCE_DIR and a private TEPPICH_TMP folder.
function(teppich_e2e_test name)
  cmake_parse_arguments(T "" "SCRIPT" "ARGS" ${ARGN})
  add_test(NAME ${name}
    COMMAND bash ${T_SCRIPT} ${T_ARGS})
  set(tmp ${CMAKE_BINARY_DIR}/e2e-tmp/${name})
  set_tests_properties(${name} PROPERTIES LABELS e2e
    ENVIRONMENT "TEPPICH=$<TARGET_FILE:teppich>;TEPPICH_SOURCE_DIR=${PROJECT_SOURCE_DIR};TEPPICH_TMP=${tmp}")
endfunction()

# teppich_add_subfolders([EXCEPT regex]): add_subdirectory() for every direct
# sub-folder of the current folder that has a CMakeLists.txt, in name order.
# This is how parts of a module (rules/ft, vision/cvw, tests/<area>) join the
# build without anyone editing a shared list.
function(teppich_add_subfolders)
  cmake_parse_arguments(A "" "EXCEPT" "" ${ARGN})
  file(GLOB parts CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*/CMakeLists.txt)
  list(SORT parts)
  foreach(part ${parts})
    get_filename_component(dir ${part} DIRECTORY)
    get_filename_component(name ${dir} NAME)
    if(A_EXCEPT AND name MATCHES "${A_EXCEPT}")
      continue()
    endif()
    add_subdirectory(${dir})
  endforeach()
endfunction()
