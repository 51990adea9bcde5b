// Three symbols the prebuilt Jazzer.js addon (fuzzer-linux-x64.node) takes from glibc >= 2.38 and
// libstdc++ >= 13. Built and preloaded by fuzz/native/prepare.mjs only where the addon does not load as is
// (Debian 12: glibc 2.36); the addon's copy has those version requirements marked weak.
#include <cstdlib>
#include <ios>

extern "C" long __isoc23_strtol(const char* text, char** end, int base) { return std::strtol(text, end, base); }
extern "C" unsigned long __isoc23_strtoul(const char* text, char** end, int base) {
  return std::strtoul(text, end, base);
}

namespace std {
// libstdc++ 13 calls this from every translation unit that includes <iostream>; older ones use a static
// ios_base::Init per unit. One static Init does the same work.
void ios_base_library_init() { static ios_base::Init init; }
}  // namespace std
