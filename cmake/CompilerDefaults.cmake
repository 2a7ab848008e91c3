# The compiler settings every Sextant build shares: the top-level project and bench/ when
# scripts/bench.sh configures it on its own. C++17, Release unless told otherwise, and ccache
# when it is installed (Torch headers make a cold build of costmodel/torch slow).
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
if(NOT CMAKE_BUILD_TYPE)
    set(CMAKE_BUILD_TYPE Release)
endif()
find_program(SEXTANT_CCACHE ccache)
if(SEXTANT_CCACHE)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${SEXTANT_CCACHE})
endif()
