#pragma once
// Certificates for tests, made with openssl in a temporary directory.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gavel::testing {

// A directory of PEM files made with openssl: a CA, certificates it signs.
class Pki {
 public:
  explicit Pki(const std::string& name) : dir_(::testing::TempDir() + "/tls_" + name) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/san.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\n";
  }
  // A self-signed CA: <name>.pem, <name>.key.
  void MakeCa(const std::string& name) {
    Run(absl::StrCat("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2",
                     " -subj /CN=", name, " -keyout ", Path(name + ".key"), " -out ", Path(name + ".pem")));
  }
  // A certificate for localhost and 127.0.0.1 with common name `common_name`, signed by `ca`.
  void MakeCert(const std::string& name, const std::string& common_name, const std::string& ca) {
    Run(absl::StrCat("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=",
                     common_name, " -keyout ", Path(name + ".key"), " -out ", Path(name + ".csr")));
    Run(absl::StrCat("openssl x509 -req -days 2 -in ", Path(name + ".csr"), " -CA ", Path(ca + ".pem"),
                     " -CAkey ", Path(ca + ".key"), " -CAcreateserial -extfile ", Path("san.ext"),
                     " -out ", Path(name + ".pem")));
  }
  std::string Path(const std::string& file) const { return dir_ + "/" + file; }

 private:
  static void Run(const std::string& command) {
    ASSERT_EQ(std::system((command + " 2>/dev/null").c_str()), 0) << command;
  }
  std::string dir_;
};

}  // namespace gavel::testing
