// docs/operators.md lists exactly the operators the registry has: a user
// reads there whether a model's operators are supported.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "kernels/ops.h"

namespace acldump {
namespace {

// The backticked names in the second column of the tables' rows.
std::set<std::string> DocumentedOperators(const std::string& text) {
  std::set<std::string> names;
  std::istringstream lines(text);
  std::string line;
  const std::regex name("`([A-Za-z0-9]+)`");
  while (std::getline(lines, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    const size_t second = line.find('|', 1);
    if (second == std::string::npos) continue;
    const size_t third = line.find('|', second + 1);
    const std::string cell = line.substr(second + 1, third - second - 1);
    for (std::sregex_iterator it(cell.begin(), cell.end(), name), end;
         it != end; ++it) {
      names.insert((*it)[1]);
    }
  }
  return names;
}

TEST(OpsDocTest, TheDocumentListsEveryRegisteredOperatorAndNoOther) {
  std::ifstream in("docs/operators.md");
  ASSERT_TRUE(in) << "docs/operators.md not found";
  std::stringstream text;
  text << in.rdbuf();
  const std::set<std::string> documented = DocumentedOperators(text.str());
  std::set<std::string> registered;
  for (const std::string& type : BuiltinOps().Types()) registered.insert(type);
  for (const std::string& type : registered) {
    EXPECT_TRUE(documented.count(type))
        << type << " is registered but not in docs/operators.md";
  }
  for (const std::string& type : documented) {
    EXPECT_TRUE(registered.count(type))
        << type << " is in docs/operators.md but not registered";
  }
}

}  // namespace
}  // namespace acldump
