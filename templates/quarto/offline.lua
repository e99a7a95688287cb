-- evalreport: keep Quarto's HTML offline (a post-render script of _quarto.yml).
--
-- With any text/html output in a notebook, Quarto adds <script src=...> tags that load require.js
-- and jQuery from a CDN (cdnjs in Quarto 1.7, jsdelivr in 1.10) plus a define('jquery', ...) stub;
-- `embed-resources` keeps them remote when offline. The charts never use them. This script removes
-- those two tags from every HTML file the render wrote, and the stub only together with a removed
-- require.js (the stub calls require.js's define). Nothing else is touched; running it twice
-- changes nothing.
--
-- Quarto runs a .lua project script as `pandoc --from markdown --to plain --lua-filter THIS` on an
-- empty document, in the project folder, with QUARTO_PROJECT_OUTPUT_FILES listing the files it
-- wrote (one per line, relative to the project; QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES names a
-- file holding that list instead). evalreport runs this same file the same way after its own
-- Quarto renders (evalreport.report.quarto.clean_files), so there is one implementation.
-- A problem is reported on stderr and never fails the render.

local function lower(s) return s:lower() end

-- the file name of a remote require.js or jQuery, e.g. https://cdn.x/npm/jquery@3.5.1/dist/jquery.min.js
local CDN_FILES = { ["require.js"] = true, ["require.min.js"] = true, ["jquery.js"] = true,
                    ["jquery.min.js"] = true }

local function is_cdn_script(tag)
  if not lower(tag):match("^%s*<script[^>]*>%s*</script>$") then return false end   -- an empty element only
  local src = tag:match("%s[Ss][Rr][Cc]%s*=%s*\"([^\"]*)\"") or tag:match("%s[Ss][Rr][Cc]%s*=%s*'([^']*)'")
  if not src then return false end
  src = lower(src)
  if not (src:match("^https?://") or src:match("^//")) then return false end
  return CDN_FILES[src:match("/([^/]*)$") or ""] == true
end

local function is_define_stub(tag)
  local body = lower(tag):match("^%s*<script[^>]*>(.-)</script>")
  if not body then return false end
  return body:match("^%s*define%(%s*['\"]jquery['\"]%s*,%s*%[%s*%]%s*,%s*function%s*%(%s*%)%s*{%s*return%s+window%.jquery;?%s*}%s*%);?%s*$")
    ~= nil
end

-- every <script ...>...</script> element with the blanks and newline around it, in document order
local function each_script(html, keep)
  local out, pos, removed = {}, 1, 0
  while true do
    local s, e = html:find("[ \t]*<[Ss][Cc][Rr][Ii][Pp][Tt][%s>][^<]*", pos)
    if not s then break end
    local close_s, close_e = html:find("</[Ss][Cc][Rr][Ii][Pp][Tt]%s*>", e + 1)
    if not close_s then break end
    local stop = close_e
    local trail = html:match("^[ \t]*\n?", stop + 1)
    local tag = html:sub(s, close_e)
    out[#out + 1] = html:sub(pos, s - 1)
    if keep(tag) then
      out[#out + 1] = tag
      pos = close_e + 1
    else
      removed = removed + 1
      pos = stop + #trail + 1
    end
  end
  out[#out + 1] = html:sub(pos)
  return table.concat(out), removed
end

local function clean(html)
  local cleaned, n = each_script(html, function(tag) return not is_cdn_script(tag) end)
  if n > 0 then
    cleaned = each_script(cleaned, function(tag) return not is_define_stub(tag) end)
  end
  return cleaned
end

local function read(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("a")
  f:close()
  return text
end

local function write_atomically(path, text)
  local tmp = path .. ".offline-tmp"
  local f, err = io.open(tmp, "wb")
  if not f then return nil, err end
  f:write(text)
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if not ok then os.remove(tmp) return nil, rerr end
  return true
end

local function outputs()
  local listed = os.getenv("QUARTO_PROJECT_OUTPUT_FILES")
  if listed == nil then
    local file = os.getenv("QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES")
    if file ~= nil then listed = read(file) end
  end
  local files = {}
  for line in (listed or ""):gmatch("[^\r\n]+") do
    if lower(line):match("%.html?$") then files[#files + 1] = line end
  end
  return files
end

local ok, err = pcall(function()
  for _, path in ipairs(outputs()) do
    local html, rerr = read(path)
    if not html then
      io.stderr:write("evalreport offline.lua: cannot read " .. path .. ": " .. tostring(rerr) .. "\n")
    else
      local cleaned = clean(html)
      if cleaned ~= html then
        local done, werr = write_atomically(path, cleaned)
        if not done then
          io.stderr:write("evalreport offline.lua: cannot write " .. path .. ": " .. tostring(werr) .. "\n")
        end
      end
    end
  end
end)
if not ok then io.stderr:write("evalreport offline.lua: " .. tostring(err) .. "\n") end
