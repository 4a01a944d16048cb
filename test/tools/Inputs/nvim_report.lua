-- Loaded after the documented recipe (nvim -u recipe.lua -S nvim_report.lua
-- FILE): waits for the first diagnostics of the current buffer (at most 90 s),
-- then writes the number of LSP clients and one line per diagnostic to the
-- file named by $NVIM_REPORT, and quits.
local buf = vim.api.nvim_get_current_buf()
vim.wait(90000, function() return #vim.diagnostic.get(buf) > 0 end, 100)
local out = io.open(os.getenv('NVIM_REPORT'), 'w')
out:write(string.format('filetype %s\n', vim.bo[buf].filetype))
out:write(string.format('clients %d\n', #vim.lsp.get_active_clients()))
for _, client in ipairs(vim.lsp.get_active_clients()) do
  out:write(string.format('client %s attached %s\n', client.name,
                          tostring(vim.lsp.buf_is_attached(buf, client.id))))
end
for _, d in ipairs(vim.diagnostic.get(buf)) do
  out:write(string.format('diagnostic %d:%d %s: %s\n', d.lnum + 1, d.col + 1,
                          tostring(d.source), d.message))
end
out:close()
vim.cmd('qall!')
