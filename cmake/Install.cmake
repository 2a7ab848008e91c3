# Installs the plugin (as the imported target Sextant::Sextant), the shipped weights, and a
# SextantConfig.cmake so that a user's project can write:
#   find_package(Sextant)
#   add_halide_library(f FROM gen AUTOSCHEDULER Sextant::Sextant)
include(CMakePackageConfigHelpers)

set_target_properties(autoschedule_sextant PROPERTIES EXPORT_NAME Sextant)
install(TARGETS autoschedule_sextant EXPORT SextantTargets
        LIBRARY DESTINATION ${SEXTANT_PLUGIN_INSTALL_DIR})
if(TARGET sextant_learned_model)
    # Beside the plugin: it is found there (dladdr) when SEXTANT_COST_MODEL=learned.
    install(TARGETS sextant_learned_model LIBRARY DESTINATION ${SEXTANT_PLUGIN_INSTALL_DIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/weights/ DESTINATION ${SEXTANT_WEIGHTS_INSTALL_DIR}
        FILES_MATCHING PATTERN "*.sxw" PATTERN "*.md"
        PATTERN "corpus" EXCLUDE)

set(SEXTANT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
install(EXPORT SextantTargets NAMESPACE Sextant:: DESTINATION ${SEXTANT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/SextantConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/SextantConfig.cmake
                              INSTALL_DESTINATION ${SEXTANT_CMAKE_DIR}
                              PATH_VARS SEXTANT_WEIGHTS_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/SextantConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/SextantConfig.cmake ${PROJECT_BINARY_DIR}/SextantConfigVersion.cmake
        DESTINATION ${SEXTANT_CMAKE_DIR})
