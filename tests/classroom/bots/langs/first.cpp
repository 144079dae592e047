// first.cpp -- a course test bot in C++ (tests/classroom): plays the first
// entry of `legal` of every your_turn, copied as it is (any game).
#include <iostream>
#include <string>

static std::string first_legal(const std::string &line)
{
    size_t at = line.find("\"legal\":[");
    if (at == std::string::npos)
        return "";
    size_t start = line.find('{', at);
    int depth = 0;
    bool str = false;
    for (size_t i = start; i < line.size(); i++) {
        char c = line[i];
        if (str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '{') {
            depth++;
        } else if (c == '}' && --depth == 0) {
            return line.substr(start, i - start + 1);
        }
    }
    return "";
}

int main()
{
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find("\"type\":\"your_turn\"") == std::string::npos)
            continue;
        std::cout << "{\"type\":\"move\",\"move\":" << first_legal(line) << "}" << std::endl;
    }
    return 0;
}
