#pragma once
// The pages' files (service/arena/web/), compiled into the binary by web/embed.cmake so the
// arena needs nothing beside it.
#include <string>

namespace gavel::arena {

struct WebAsset {
  const char* path;          // e.g. "/index.html"
  const char* content_type;  // e.g. "text/html"
  std::string content;
};

// The file served at `path`, or null.
const WebAsset* FindWebAsset(const std::string& path);

}  // namespace gavel::arena
