/**
 * Policy rules the gated-tool tests share: `exec` of one command allowed and every other denied,
 * and `fs.write` held for a person's yes.
 */
export const EXEC_AND_WRITE_POLICY = `
[[security.policy]]
action = "allow"
reason = "the one command we trust"
[security.policy.match]
tool = "exec"
args = [{ path = "command", equals = "echo allowed" }]

[[security.policy]]
action = "deny"
reason = "no other shell commands"
[security.policy.match]
tool = "exec"

[[security.policy]]
action = "ask"
question = "May the agent write out.txt?"
[security.policy.match]
tool = "fs.write"
`;
