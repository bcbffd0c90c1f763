// Copyright 2026 urdf_state_py maintainers
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

// A raw Fast DDS writer: sends caller-chosen bytes, unchecked, on ROS 2 topics as they
// appear on the wire (`rt/joint_states`, `rq/<node>/get_parametersRequest`, ...) with the
// ROS type names rmw_fastrtps gives them, so that the receiving rmw deserialises them.
// rclpy cannot do this for service requests: a ROS name cannot start with `rq/`.
//
// It joins ROS_DOMAIN_ID on this host only, as rmw_fastrtps does for
// ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST (rmw_fastrtps_shared_cpp/src/participant.cpp):
// no multicast listening locators, builtin transports off, shared memory plus UDPv4, the
// initial peer 127.0.0.1; in addition its UDP transport is bound to 127.0.0.1 only.
// Writers are reliable, XCDR1 and without data sharing (rmw_fastrtps's qos.cpp,
// publisher.cpp), volatile or transient local as asked.
//
// Usage: raw_writer MATCH_TIMEOUT_S TOPIC=TYPE=DURABILITY...   (DURABILITY: volatile|transient_local)
// stdout: "matched <topic> <readers>" per topic (or "unmatched <topic>"), then "ready".
// stdin, after "ready": records of u32 topic index, u32 length (little endian), bytes.
// At end of input: waits for acknowledgements (10 s for all writers together), prints
// "sent <topic> <ok> <failed> acknowledged|unacknowledged" per topic, then "done".
// Built by test/test_dds_fuzz.py against the Fast DDS of the venv: 2.14 (Jazzy,
// libfastrtps) or 3.x (Kilted, libfastdds).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<fastdds/config.hpp>)
#include <fastdds/config.hpp>
#else
#include <fastrtps/config.h>
#endif

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/topic/Topic.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>

#if defined(FASTDDS_VERSION_MAJOR) && FASTDDS_VERSION_MAJOR >= 3
#define RAW_FASTDDS3 1
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.hpp>
#include <fastdds/rtps/transport/shared_mem/SharedMemTransportDescriptor.hpp>
#include <fastdds/utils/IPLocator.hpp>
namespace frtps = eprosima::fastdds::rtps;
using Duration = eprosima::fastdds::dds::Duration_t;
#else
#define RAW_FASTDDS3 0
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastdds/rtps/transport/shared_mem/SharedMemTransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>
namespace frtps = eprosima::fastrtps::rtps;
using Duration = eprosima::fastrtps::Duration_t;
#endif

namespace fdds = eprosima::fastdds::dds;

namespace {

using Bytes = std::vector<unsigned char>;

// A type whose samples are their serialised form: the bytes go out as the payload,
// encapsulation header included (the receiving rmw reads it from the payload).
class RawType : public fdds::TopicDataType {
public:
  explicit RawType(const std::string & name) {
#if RAW_FASTDDS3
    set_name(name);
    max_serialized_type_size = kMaxPayload;
    is_compute_key_provided = false;
#else
    setName(name.c_str());
    m_typeSize = kMaxPayload;
    m_isGetKeyDefined = false;
    auto_fill_type_object(false);
    auto_fill_type_information(false);
#endif
  }

  static constexpr uint32_t kMaxPayload = 4u << 20;

#if RAW_FASTDDS3
  bool serialize(const void * const data, frtps::SerializedPayload_t & payload,
                 fdds::DataRepresentationId_t) override { return fill(data, payload); }
  bool deserialize(frtps::SerializedPayload_t &, void *) override { return false; }
  uint32_t calculate_serialized_size(const void * const data,
                                     fdds::DataRepresentationId_t) override {
    return size_of(data);
  }
  void * create_data() override { return new Bytes(); }
  void delete_data(void * data) override { delete static_cast<Bytes *>(data); }
  bool compute_key(frtps::SerializedPayload_t &, frtps::InstanceHandle_t &, bool) override {
    return false;
  }
  bool compute_key(const void * const, frtps::InstanceHandle_t &, bool) override { return false; }
#else
  bool serialize(void * data, frtps::SerializedPayload_t * payload) override {
    return fill(data, *payload);
  }
  bool deserialize(frtps::SerializedPayload_t *, void *) override { return false; }
  std::function<uint32_t()> getSerializedSizeProvider(void * data) override {
    return [data]() { return size_of(data); };
  }
  void * createData() override { return new Bytes(); }
  void deleteData(void * data) override { delete static_cast<Bytes *>(data); }
  bool getKey(void *, frtps::InstanceHandle_t *, bool) override { return false; }
#endif

private:
  static uint32_t size_of(const void * data) {
    // never 0: a pool cannot hand out an empty payload; the length set below may be 0
    return static_cast<uint32_t>(static_cast<const Bytes *>(data)->size()) + 4;
  }

  static bool fill(const void * data, frtps::SerializedPayload_t & payload) {
    const Bytes & bytes = *static_cast<const Bytes *>(data);
    if (bytes.size() > payload.max_size) {
      return false;
    }
    if (!bytes.empty()) {
      std::memcpy(payload.data, bytes.data(), bytes.size());
    }
    payload.length = static_cast<uint32_t>(bytes.size());
    // what the header claims (the writer does not check it; the reader's rmw does)
    payload.encapsulation = bytes.size() >= 2 ? bytes[1] : 0;
    return true;
  }
};

struct Endpoint {
  std::string topic;
  fdds::Topic * dds_topic = nullptr;
  fdds::DataWriter * writer = nullptr;
  uint64_t ok = 0;
  uint64_t failed = 0;
};

bool write_ok(fdds::DataWriter * writer, Bytes & sample) {
#if RAW_FASTDDS3
  return writer->write(&sample) == fdds::RETCODE_OK;
#else
  return writer->write(&sample);
#endif
}

bool acknowledged(fdds::DataWriter * writer, std::chrono::nanoseconds wait) {
  const auto ns = std::max<int64_t>(0, wait.count());
  const auto code = writer->wait_for_acknowledgments(
    Duration(static_cast<int32_t>(ns / 1000000000), static_cast<uint32_t>(ns % 1000000000)));
#if RAW_FASTDDS3
  return code == fdds::RETCODE_OK;
#else
  return code == eprosima::fastrtps::types::ReturnCode_t::RETCODE_OK;
#endif
}

fdds::DomainParticipantQos localhost_only() {
  fdds::DomainParticipantQos qos = fdds::PARTICIPANT_QOS_DEFAULT;
  qos.name("urdf_state_raw_writer");
  auto & builtin = qos.wire_protocol().builtin;
  builtin.metatrafficMulticastLocatorList.clear();
  builtin.metatrafficUnicastLocatorList.push_back(frtps::Locator_t());
  frtps::Locator_t peer;
  frtps::IPLocator::setIPv4(peer, "127.0.0.1");
  builtin.initialPeersList.push_back(peer);
  qos.transport().use_builtin_transports = false;
  qos.transport().user_transports.push_back(
    std::make_shared<eprosima::fastdds::rtps::SharedMemTransportDescriptor>());
  auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
  udp->interfaceWhiteList.emplace_back("127.0.0.1");
  udp->maxInitialPeersRange = 32;
  qos.transport().user_transports.push_back(udp);
  return qos;
}

bool read_exact(void * into, size_t n) {
  return n == 0 || std::fread(into, 1, n, stdin) == n;
}

}  // namespace

int main(int argc, char ** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MATCH_TIMEOUT_S TOPIC=TYPE=DURABILITY...\n", argv[0]);
    return 2;
  }
  const int match_timeout = std::atoi(argv[1]);
  const char * domain_env = std::getenv("ROS_DOMAIN_ID");
  const int domain = domain_env && *domain_env ? std::atoi(domain_env) : 0;

  auto factory = fdds::DomainParticipantFactory::get_instance();
  fdds::DomainParticipant * participant = factory->create_participant(domain, localhost_only());
  if (participant == nullptr) {
    std::fprintf(stderr, "raw_writer: no participant\n");
    return 1;
  }
  fdds::Publisher * publisher = participant->create_publisher(fdds::PUBLISHER_QOS_DEFAULT);
  std::vector<Endpoint> endpoints;
  for (int i = 2; i < argc; ++i) {
    const std::string spec(argv[i]);
    const size_t a = spec.find('='), b = spec.rfind('=');
    if (a == std::string::npos || a == b) {
      std::fprintf(stderr, "raw_writer: bad spec '%s'\n", argv[i]);
      return 2;
    }
    Endpoint ep;
    ep.topic = spec.substr(0, a);
    const std::string type_name = spec.substr(a + 1, b - a - 1);
    fdds::TypeSupport type(new RawType(type_name));
    if (participant->find_type(type_name) == nullptr) {  // one topic per type is enough
      type.register_type(participant);
    }
    ep.dds_topic = participant->create_topic(ep.topic, type_name, fdds::TOPIC_QOS_DEFAULT);
    fdds::DataWriterQos qos = fdds::DATAWRITER_QOS_DEFAULT;
    qos.reliability().kind = fdds::RELIABLE_RELIABILITY_QOS;
    qos.reliability().max_blocking_time = Duration(1, 0);
    qos.durability().kind = spec.substr(b + 1) == "transient_local" ?
      fdds::TRANSIENT_LOCAL_DURABILITY_QOS : fdds::VOLATILE_DURABILITY_QOS;
    // keep last: a sample a reader never acknowledges (Fast DDS drops an empty one
    // unacknowledged) must not block the writer; the test paces what it sends
    qos.history().kind = fdds::KEEP_LAST_HISTORY_QOS;
    qos.history().depth = 100;
    qos.endpoint().history_memory_policy = frtps::DYNAMIC_REUSABLE_MEMORY_MODE;
    qos.data_sharing().off();
    qos.representation().m_value.clear();
    qos.representation().m_value.push_back(fdds::XCDR_DATA_REPRESENTATION);
    ep.writer = ep.dds_topic ? publisher->create_datawriter(ep.dds_topic, qos) : nullptr;
    if (ep.writer == nullptr) {
      std::fprintf(stderr, "raw_writer: no writer for '%s' (%s)\n", ep.topic.c_str(),
                   type_name.c_str());
      return 1;
    }
    endpoints.push_back(ep);
  }

  // every writer matched, or the deadline: the test decides what an unmatched one means
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(match_timeout);
  std::vector<int> matched(endpoints.size(), 0);
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < endpoints.size(); ++i) {
      fdds::PublicationMatchedStatus status;
      endpoints[i].writer->get_publication_matched_status(status);
      matched[i] = status.current_count;
      all = all && matched[i] > 0;
    }
    if (all || std::chrono::steady_clock::now() > deadline) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (matched[i] > 0) {
      std::printf("matched %s %d\n", endpoints[i].topic.c_str(), matched[i]);
    } else {
      std::printf("unmatched %s\n", endpoints[i].topic.c_str());
    }
  }
  std::printf("ready\n");
  std::fflush(stdout);

  Bytes sample;
  for (;;) {
    uint32_t head[2];
    if (!read_exact(head, sizeof head)) {
      break;
    }
    if (head[0] >= endpoints.size() || head[1] > RawType::kMaxPayload) {
      std::fprintf(stderr, "raw_writer: bad record (topic %u, %u bytes)\n", head[0], head[1]);
      return 2;
    }
    sample.resize(head[1]);
    if (!read_exact(sample.data(), sample.size())) {
      break;
    }
    Endpoint & ep = endpoints[head[0]];
    if (write_ok(ep.writer, sample)) {
      ++ep.ok;
    } else {
      ++ep.failed;
    }
  }
  // One deadline for all writers: a writer whose reader dropped a sample (Fast DDS drops an
  // empty one unacknowledged) waits it out, and ten such writers must not wait ten times.
  const auto acks_until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (Endpoint & ep : endpoints) {
    const bool acked = acknowledged(ep.writer, acks_until - std::chrono::steady_clock::now());
    std::printf("sent %s %llu %llu %s\n", ep.topic.c_str(), static_cast<unsigned long long>(ep.ok),
                static_cast<unsigned long long>(ep.failed), acked ? "acknowledged" : "unacknowledged");
  }
  std::printf("done\n");
  std::fflush(stdout);
  participant->delete_contained_entities();
  factory->delete_participant(participant);
  return 0;
}
