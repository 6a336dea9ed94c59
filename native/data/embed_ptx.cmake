# Writes OUT, a C++ file defining clab::kDataKernelsPtx as the text of PTX (empty when PTX is "").
if(PTX STREQUAL "")
  set(text "")
else()
  file(READ "${PTX}" text)
endif()
file(WRITE "${OUT}" "// Generated from native/data/data_kernels.ptx (native/CMakeLists.txt); do not edit.\nnamespace clab {\nextern const char kDataKernelsPtx[] = R\"clab_ptx(${text})clab_ptx\";\n}  // namespace clab\n")
