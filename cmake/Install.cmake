# Installs the plugin, the shipped weights and a SextantConfig.cmake for find_package(Sextant).
