// sextant-features: prints the feature schema (--markdown for docs/FEATURES.md, --version).
#include "featurizer/Schema.h"

#include <cstring>
#include <iostream>

int main(int argc, char **argv) {
    if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
        std::cout << sextant::schema_markdown();
        return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << sextant::kFeatureSchemaVersion << "\n";
        return 0;
    }
    std::cerr << "usage: sextant-features --markdown | --version\n";
    return 2;
}
