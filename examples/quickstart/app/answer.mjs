// A stand-in for the app under test: `eb eval --target "node app/answer.mjs"` runs it once per
// sample with the case on stdin ({"id", "stratum", "messages", "sample"}) and grades what it
// prints. Deterministic, offline, no key. Replace it with a call into your own app.
const input = JSON.parse(await readStdin());
const question = input.messages.at(-1).content;
process.stdout.write(answer(question));

function answer(text) {
  const invoice = /invoice\s+(\S+?)[,\s]/i.exec(text);
  if (invoice) return invoiceJson(invoice[1], text);
  const sum = /what is (\d+) \+ (\d+)/i.exec(text);
  if (sum) return String(Number(sum[1]) + Number(sum[2]));
  const name = /say hello to (\w+)/i.exec(text);
  if (name) return `Hello, ${name[1]}!`;
  if (/refund/i.test(text)) return refundReply(text);
  return "Sorry, I can only help with orders, invoices and sums.";
}

function invoiceJson(number, text) {
  const total = /for (\d+(?:\.\d+)?)/i.exec(text);
  const due = /due (\d{4}-\d\d-\d\d)/i.exec(text);
  const fields = {
    invoice_no: number,
    total: total ? Number(total[1]) : null,
    due: due ? due[1] : null,
  };
  return `Here are the fields:\n\`\`\`json\n${JSON.stringify(fields, null, 2)}\n\`\`\``;
}

// The deliberate bug the quick start shows: an amount in the request is repeated back.
function refundReply(text) {
  const amount = /\$\d+/.exec(text);
  const sorry = "I'm sorry to hear that.";
  if (amount) return `${sorry} I can start a refund of ${amount[0]} once I have your order number.`;
  return `${sorry} Could you send me your order number so I can look into it?`;
}

async function readStdin() {
  let data = "";
  for await (const chunk of process.stdin) data += chunk;
  return data;
}
