#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "backends/opencl/probe_hooks.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/records.hpp"
#include "unit/backends/opencl/opencl_fixture.hpp"

namespace conveyor::test {
namespace {

using backend::opencl::ProbeHooks;

class OpenCLProbe : public OpenCLTest {
 protected:
  void SetUp() override {
    OpenCLTest::SetUp();
    if (IsSkipped()) return;
    target_ = device().make_probe_target();
    hooks_ = dynamic_cast<ProbeHooks*>(target_.get());
    ASSERT_NE(hooks_, nullptr);
  }

  std::unique_ptr<ProbeTarget> target_;
  ProbeHooks* hooks_ = nullptr;
};

std::uint8_t pattern(std::size_t i) { return static_cast<std::uint8_t>(i * 31 + 7); }

TEST_F(OpenCLProbe, OffersTheModelsTheDeviceSupports) {
  auto models = target_->memory_models();
  for (MemoryModel m : {MemoryModel::Pageable, MemoryModel::Pinned, MemoryModel::Mapped})
    EXPECT_NE(std::find(models.begin(), models.end(), m), models.end());
  bool svm = device_details(device().info())["svm"]["coarse_grain_buffer"].get<bool>();
  EXPECT_EQ(std::find(models.begin(), models.end(), MemoryModel::Svm) != models.end(), svm);
  EXPECT_EQ(std::find(models.begin(), models.end(), MemoryModel::Host), models.end());
}

TEST_F(OpenCLProbe, EveryTransferRunsAndTakesTime) {
  for (MemoryModel model : target_->memory_models())
    for (Direction direction : target_->directions(model))
      for (std::size_t bytes : {std::size_t{4099}, std::size_t{1} << 20}) {
        SCOPED_TRACE(testing::Message() << static_cast<int>(model) << " "
                                        << static_cast<int>(direction) << " " << bytes);
        EXPECT_GT(target_->transfer(direction, model, bytes), 0.0);
      }
}

TEST_F(OpenCLProbe, TransfersCarryTheDataThereAndBack) {
  const std::size_t bytes = 100003;
  for (MemoryModel model : target_->memory_models()) {
    SCOPED_TRACE(static_cast<int>(model));
    std::uint8_t* host = hooks_->transfer_host_side(model, bytes);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = pattern(i);
    target_->transfer(Direction::HostToDevice, model, bytes);
    std::fill(host, host + bytes, 0);
    target_->transfer(Direction::DeviceToHost, model, bytes);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < bytes; ++i) wrong += host[i] != pattern(i);
    EXPECT_EQ(wrong, 0u);
  }
}

TEST_F(OpenCLProbe, DeviceToDeviceCopyIsWhatTheNextReadSees) {
  const std::size_t bytes = 65536 + 5;
  std::uint8_t* host = hooks_->transfer_host_side(MemoryModel::Pageable, bytes);
  for (std::size_t i = 0; i < bytes; ++i) host[i] = pattern(i);
  target_->transfer(Direction::HostToDevice, MemoryModel::Pageable, bytes);
  std::fill(host, host + bytes, 0);
  target_->transfer(Direction::DeviceToDevice, MemoryModel::Pageable, bytes);
  target_->transfer(Direction::DeviceToHost, MemoryModel::Pageable, bytes);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i) wrong += host[i] != pattern(i);
  EXPECT_EQ(wrong, 0u);
}

TEST_F(OpenCLProbe, MemoryTaskUpdatesEveryElementUnderEveryModel) {
  for (MemoryModel model : target_->memory_models())
    for (std::size_t count : {std::size_t{1}, std::size_t{1001}, std::size_t{262147}}) {
      SCOPED_TRACE(testing::Message() << static_cast<int>(model) << " " << count);
      const std::size_t bytes = count * sizeof(float);
      float* x = hooks_->task_host_side(model, bytes);
      for (std::size_t i = 0; i < count; ++i) x[i] = static_cast<float>(i % 1000);
      EXPECT_GT(target_->memory_task(model, bytes), 0.0);
      x = hooks_->task_host_side(model, bytes);  // a mapping may move
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < count; ++i)
        wrong +=
            x[i] != static_cast<float>(i % 1000) * ProbeHooks::kTaskScale + ProbeHooks::kTaskOffset;
      EXPECT_EQ(wrong, 0u);
    }
}

TEST_F(OpenCLProbe, DispatchTimesArePositive) {
  EXPECT_GT(target_->dispatch_enqueue(50), 0.0);
  EXPECT_GT(target_->dispatch_roundtrip(), 0.0);
}

TEST_F(OpenCLProbe, RefusesBadRequests) {
  EXPECT_THROW(target_->dispatch_enqueue(0), UsageError);
  EXPECT_THROW(target_->transfer(Direction::HostToDevice, MemoryModel::Pageable, 0), UsageError);
  std::size_t too_big = device_details(device().info())["max_alloc_bytes"].get<std::size_t>() + 1;
  EXPECT_THROW(target_->transfer(Direction::HostToDevice, MemoryModel::Pageable, too_big),
               UsageError);
  EXPECT_THROW(target_->transfer(Direction::DeviceToDevice, MemoryModel::Pinned, 4096), UsageError);
  EXPECT_THROW(target_->transfer(Direction::HostToDevice, MemoryModel::Host, 4096), UsageError);
  EXPECT_THROW(target_->memory_task(MemoryModel::Host, 4096), UsageError);
  EXPECT_THROW(target_->matmul(0, nullptr, nullptr, nullptr), UsageError);
  EXPECT_THROW(target_->md5(0, nullptr, nullptr), UsageError);
}

}  // namespace
}  // namespace conveyor::test
