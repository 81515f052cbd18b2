#include "service/engine_client.h"

#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace gavel::service {

const char* EngineServiceConfig() {
  return R"({
  "loadBalancingConfig": [{"round_robin": {}}],
  "healthCheckConfig": {"serviceName": ""},
  "methodConfig": [{
    "name": [{"service": "gavel.v1.Engine"}],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "0.02s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
})";
}

std::shared_ptr<grpc::Channel> MakeEngineChannel(const std::string& target, int max_message_bytes,
                                                 std::shared_ptr<grpc::ChannelCredentials> credentials) {
  grpc::ChannelArguments arguments;
  arguments.SetServiceConfigJSON(EngineServiceConfig());
  arguments.SetMaxReceiveMessageSize(max_message_bytes);
  arguments.SetMaxSendMessageSize(max_message_bytes);
  arguments.SetInt(GRPC_ARG_ENABLE_RETRIES, 1);
  if (!credentials) credentials = grpc::InsecureChannelCredentials();
  return grpc::CreateCustomChannel(target, credentials, arguments);
}

}  // namespace gavel::service
