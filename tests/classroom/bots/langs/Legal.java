// Legal.java -- the first entry of `legal` in a your_turn line, as it is.
class Legal {
    static String first(String line) {
        int at = line.indexOf("\"legal\":[");
        int start = line.indexOf('{', at);
        int depth = 0;
        boolean str = false;
        for (int i = start; i < line.length(); i++) {
            char c = line.charAt(i);
            if (str) {
                if (c == '\\') i++;
                else if (c == '"') str = false;
            } else if (c == '"') str = true;
            else if (c == '{') depth++;
            else if (c == '}' && --depth == 0) return line.substring(start, i + 1);
        }
        return "";
    }
}
