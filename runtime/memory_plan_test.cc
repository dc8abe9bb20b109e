#include "runtime/memory_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "base/error_kind.h"

namespace acldump {
namespace {

using ::testing::HasSubstr;

bool Overlap(const ArenaValue& a, const ArenaValue& b) {
  const bool alive_together =
      a.first_step <= b.last_step && b.first_step <= a.last_step;
  const bool memory_overlaps = a.offset < b.offset + AlignToPlan(b.bytes) &&
                               b.offset < a.offset + AlignToPlan(a.bytes);
  return alive_together && memory_overlaps;
}

TEST(PlanArenaTest, ValuesAliveTogetherNeverShareMemory) {
  // Lifetimes of a small chain with branches.
  std::vector<ArenaValue> values = {{1000, 0, 2}, {64, 1, 1},   {4096, 1, 3},
                                    {100, 2, 4},  {5000, 3, 5}, {1, 4, 4},
                                    {70, 5, 6},   {4096, 6, 7}, {3000, 0, 7}};
  const size_t arena = PlanArena(values);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i].offset % kPlanAlignment, 0u);
    EXPECT_LE(values[i].offset + AlignToPlan(values[i].bytes), arena);
    for (size_t j = i + 1; j < values.size(); ++j) {
      EXPECT_FALSE(Overlap(values[i], values[j])) << i << " and " << j;
    }
  }
}

TEST(PlanArenaTest, DeadValuesAreReused) {
  // Three values in sequence, each dead before the next: one slot.
  std::vector<ArenaValue> values = {{1024, 0, 0}, {1024, 1, 1}, {1024, 2, 2}};
  EXPECT_EQ(PlanArena(values), 1024u);
  EXPECT_EQ(values[0].offset, values[1].offset);
  // All alive at once: three slots.
  std::vector<ArenaValue> together = {{1024, 0, 2}, {1024, 0, 2}, {1024, 0, 2}};
  EXPECT_EQ(PlanArena(together), 3 * 1024u);
}

TEST(PlanArenaTest, EmptyValuesStillGetAnAlignedSlot) {
  std::vector<ArenaValue> values = {{0, 0, 1}, {0, 0, 1}};
  EXPECT_EQ(PlanArena(values), 2 * kPlanAlignment);
  EXPECT_NE(values[0].offset, values[1].offset);
  EXPECT_EQ(PlanArena(std::span<ArenaValue>()), 0u);
}

TEST(CheckFootprintTest, NamesEveryPartAndTheLimit) {
  const ModelFootprint fits{100, 10, 50};
  EXPECT_TRUE(CheckFootprint(fits, 160, "m").ok());
  absl::Status over = CheckFootprint(fits, 159, "bomb");
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(KindOf(over), ErrorKind::kOutOfMemory);
  EXPECT_THAT(over.message(),
              HasSubstr("model 'bomb' needs 160 bytes of memory (activations "
                        "100, kernel workspace 10, weights 50), more than its "
                        "limit of 159 bytes"));
  EXPECT_THAT(over.message(), HasSubstr("ACLDUMP_MAX_MODEL_MEMORY_MB"));
}

TEST(DefaultModelMemoryLimitTest, IsPositiveAndBelowPhysicalMemory) {
  EXPECT_GT(DefaultModelMemoryLimit(), size_t{1} << 20);
}

}  // namespace
}  // namespace acldump
