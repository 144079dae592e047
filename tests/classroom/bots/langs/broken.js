// broken.js -- a course test bot in JavaScript that does not parse: the
// student is shown node's SyntaxError.
const moves = ;
