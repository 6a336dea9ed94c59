// The test-only module's hooks that live in files of their own (binding/test_hooks.cc registers them).
#pragma once

#include <napi.h>

namespace clab::test_hooks {

/** taggedCallPlay(op, tag, since231): binding/test_hooks_tag.cc. */
Napi::Value TaggedCallPlay(const Napi::CallbackInfo& info);

/** handoffPlay(options): binding/test_hooks_handoff.cc. */
Napi::Value HandoffPlay(const Napi::CallbackInfo& info);

}  // namespace clab::test_hooks
