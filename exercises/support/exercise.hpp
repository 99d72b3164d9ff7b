// What a stub says when it runs: "not implemented yet".
//
// Every student file of exercises/ starts as a stub that compiles and runs. The parts the
// student writes are missing, and the stub calls exercise::todo() where they belong, so each
// test fails at once with a one-line reason instead of crashing, hanging or passing by luck.
#pragma once

#include <stdexcept>
#include <string>

namespace exercise {

struct NotImplemented : std::logic_error {
  explicit NotImplemented(const std::string& what);  // what() = "not implemented yet: " + what
};

// Throws NotImplemented. Deliberately not [[noreturn]]: a stub keeps the code that follows
// the call (the part the student does not write), and compilers would call it unreachable.
void todo(const std::string& what);

// For stubs of functions that return a value; the parameters the stub does not use yet may
// be passed along so that the compiler does not warn about them:
//     return exercise::todo<int>("01b_sectors: sectors_touched", stride, offset);
template <typename T, typename... Unused>
T todo(const std::string& what, const Unused&...) {
  todo(what);
  return T{};
}

}  // namespace exercise
